//! The two forms glovebox hands its derived JSON schemas out in. schemars
//! writes `$ref`s into `$defs`, `oneOf`s, `format`s and closed objects;
//! clients convert tool schemas in ways that break on some of those, so every
//! schema leaves glovebox through one of these transforms:
//!
//! - [`portable`]: MCP tool input schemas. Passes unchanged through the
//!   converters agents load MCP tools with: the OpenAI Agents SDK's strict
//!   conversion (no `$ref` it could not follow, no open object) and Google
//!   GenAI's MCP-to-Gemini conversion (no boolean `additionalProperties`,
//!   which its converter reads as a schema). Bounds stay: they are the
//!   contract's.
//! - [`strict`]: function-calling schemas a provider enforces (OpenAI strict
//!   mode, the most demanding): additionally every object closed with every
//!   property required, and no keyword strict mode refuses.
//!
//! Both inline references, so a schema says everything in one place, and
//! keep a description where the model reads what a field means: a
//! property's own text wins over its type's, and the variants of a field
//! that has a description are not described again. In the portable form
//! an array's items carry no prose either: the array's own description
//! says what they are (every MCP tool lists its schema in every turn).

use serde_json::{json, Map, Value};

/// An MCP tool's input schema in the portable form (see the module docs).
pub fn portable(schema: &Value) -> Value {
    let definitions = definitions_of(schema);
    let mut portable = transform(schema, &definitions, Form::Portable);
    drop_optional_nulls(&mut portable);
    portable
}

/// An optional property is left out when it has no value, so its schema
/// needs no `null` alternative (schemars writes one for every `Option`);
/// every tool list carries these bytes in every agent turn.
fn drop_optional_nulls(schema: &mut Value) {
    let Value::Object(map) = schema else {
        if let Value::Array(items) = schema {
            items.iter_mut().for_each(drop_optional_nulls);
        }
        return;
    };
    let required: Vec<String> = map
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|r| r.as_str().map(str::to_owned))
        .collect();
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        for (_, property) in properties.iter_mut().filter(|(name, _)| !required.contains(name)) {
            strip_null(property);
        }
    }
    map.values_mut().for_each(drop_optional_nulls);
}

/// `X | null` as `X`.
fn strip_null(property: &mut Value) {
    let Value::Object(map) = property else { return };
    if let Some(Value::Array(types)) = map.get("type") {
        let kept: Vec<Value> =
            types.iter().filter(|t| t.as_str() != Some("null")).cloned().collect();
        if kept.len() == 1 {
            map.insert("type".into(), kept[0].clone());
        }
    }
    if let Some(Value::Array(variants)) = map.get("anyOf") {
        let kept: Vec<Value> = variants
            .iter()
            .filter(|v| v.get("type").and_then(Value::as_str) != Some("null"))
            .cloned()
            .collect();
        if kept.len() == 1 && kept.len() < variants.len() {
            let mut only = kept[0].clone();
            map.remove("anyOf");
            if let Value::Object(only) = &mut only {
                for (k, v) in std::mem::take(only) {
                    map.entry(k).or_insert(v);
                }
            }
        }
    }
}

/// A function-calling schema in strict form (see the module docs).
pub fn strict(schema: &Value) -> Value {
    let definitions = definitions_of(schema);
    transform(schema, &definitions, Form::Strict)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Portable,
    Strict,
}

fn definitions_of(schema: &Value) -> Map<String, Value> {
    schema
        .get("$defs")
        .or_else(|| schema.get("definitions"))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

/// Keywords dropped from every form: metadata no client needs, and
/// `format`s such as `uint8` that converters reject or ignore.
const DROPPED: &[&str] = &["$schema", "$defs", "definitions", "title", "format"];
/// Further keywords OpenAI's strict mode refuses.
const NOT_STRICT: &[&str] =
    &["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "pattern"];

fn transform(schema: &Value, definitions: &Map<String, Value>, form: Form) -> Value {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                let name = reference.rsplit('/').next().unwrap_or_default();
                let mut inlined =
                    transform(definitions.get(name).unwrap_or(&json!({})), definitions, form);
                if let Value::Object(target) = &mut inlined {
                    // The referring site says what this field is; the type's own text would repeat it.
                    target.remove("description");
                    for (key, value) in map.iter().filter(|(k, _)| k.as_str() != "$ref") {
                        target.insert(key.clone(), transform(value, definitions, form));
                    }
                    undescribe_variants(target);
                }
                return inlined;
            }
            let mut out = Map::new();
            for (key, value) in map {
                let key = key.as_str();
                if DROPPED.contains(&key) || (form == Form::Strict && NOT_STRICT.contains(&key)) {
                    continue;
                }
                match key {
                    "oneOf" => {
                        out.insert("anyOf".into(), transform(value, definitions, form));
                    }
                    "const" => {
                        out.insert("enum".into(), json!([value]));
                    }
                    "properties" if form == Form::Strict => {
                        let properties: Map<String, Value> = value
                            .as_object()
                            .into_iter()
                            .flatten()
                            .map(|(k, v)| (k.clone(), transform(v, definitions, form)))
                            .collect();
                        out.insert("required".into(), json!(properties.keys().collect::<Vec<_>>()));
                        out.insert("additionalProperties".into(), json!(false));
                        out.insert("properties".into(), Value::Object(properties));
                    }
                    "required" | "additionalProperties" if form == Form::Strict => {}
                    // Closedness is the strict converters' to add; a boolean here breaks Gemini's converter.
                    "additionalProperties" if value.is_boolean() => {}
                    "items" if form == Form::Portable => {
                        out.insert(
                            key.into(),
                            without_descriptions(transform(value, definitions, form)),
                        );
                    }
                    _ => {
                        out.insert(key.into(), transform(value, definitions, form));
                    }
                }
            }
            enum_of_constants(&mut out);
            undescribe_variants(&mut out);
            Value::Object(out)
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| transform(v, definitions, form)).collect())
        }
        other => other.clone(),
    }
}

/// `anyOf` of one-value string enums (a documented unit enum) becomes one
/// plain `enum`: the same values, a third of the bytes.
fn enum_of_constants(out: &mut Map<String, Value>) {
    let Some(Value::Array(variants)) = out.get("anyOf") else { return };
    let values: Option<Vec<Value>> = variants
        .iter()
        .map(|v| match v.get("enum") {
            Some(Value::Array(one)) if one.len() == 1 && one[0].is_string() => Some(one[0].clone()),
            _ => None,
        })
        .collect();
    if let Some(values) = values.filter(|v| !v.is_empty()) {
        out.remove("anyOf");
        out.insert("type".into(), json!("string"));
        out.insert("enum".into(), Value::Array(values));
    }
}

fn without_descriptions(mut schema: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                // A property may be called "description"; only the keyword goes.
                if map.get("description").is_some_and(Value::is_string) {
                    map.remove("description");
                }
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut schema);
    schema
}

fn undescribe_variants(out: &mut Map<String, Value>) {
    if !out.contains_key("description") {
        return;
    }
    if let Some(Value::Array(variants)) = out.get_mut("anyOf") {
        for variant in variants.iter_mut().filter_map(Value::as_object_mut) {
            variant.remove("description");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk<'a>(v: &'a Value, out: &mut Vec<&'a Map<String, Value>>) {
        match v {
            Value::Object(m) => {
                out.push(m);
                m.values().for_each(|c| walk(c, out));
            }
            Value::Array(a) => a.iter().for_each(|c| walk(c, out)),
            _ => {}
        }
    }

    fn sample() -> Value {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "target": {"$ref": "#/$defs/Target", "description": "where"},
                "mode": {"anyOf": [{"$ref": "#/$defs/Mode"}, {"type": "null"}]},
                "count": {"type": ["integer", "null"], "format": "uint8", "minimum": 1, "maximum": 3}
            },
            "required": ["target"],
            "$defs": {
                "Target": {"description": "type text", "oneOf": [
                    {"description": "an id", "type": "object", "additionalProperties": false, "properties": {"element": {"type": "string"}}, "required": ["element"]},
                    {"type": "object", "additionalProperties": false, "properties": {"point": {"$ref": "#/$defs/Point"}}, "required": ["point"]}
                ]},
                "Point": {"type": "object", "additionalProperties": false, "properties": {"x": {"type": "integer", "format": "int32"}}, "required": ["x"]},
                "Mode": {"oneOf": [{"const": "a", "type": "string", "description": "A"}, {"const": "b", "type": "string"}]}
            }
        })
    }

    #[test]
    fn portable_has_no_reference_format_or_boolean_additional_properties() {
        let p = portable(&sample());
        let mut all = vec![];
        walk(&p, &mut all);
        for m in &all {
            for key in ["$ref", "$defs", "$schema", "format", "oneOf", "const"] {
                assert!(!m.contains_key(key), "{key} left in {m:?}");
            }
            assert!(!m.get("additionalProperties").is_some_and(Value::is_boolean), "{m:?}");
        }
        assert_eq!(
            p["properties"]["target"]["description"], "where",
            "the site's description wins"
        );
        assert!(
            p["properties"]["target"]["anyOf"][0].get("description").is_none(),
            "variants of a described field are not described again"
        );
        assert_eq!(
            p["properties"]["mode"],
            json!({"type": "string", "enum": ["a", "b"]}),
            "an optional property has no null alternative"
        );
        assert_eq!(p["properties"]["count"]["maximum"], 3, "bounds are kept");
        assert_eq!(p["required"], json!(["target"]), "optional stays optional");
        assert_eq!(
            p["properties"]["target"]["anyOf"][1]["properties"]["point"]["properties"]["x"],
            json!({"type": "integer"})
        );
    }

    #[test]
    fn portable_items_carry_no_prose_but_keep_their_shape() {
        let p = portable(
            &json!({"type": "object", "properties": {"steps": {"description": "the steps", "type": "array", "items": {"$ref": "#/$defs/Step"}}},
            "$defs": {"Step": {"description": "one", "type": "object", "properties": {"description": {"type": "string", "description": "a field named description"}, "n": {"type": "integer", "minimum": 1, "description": "n"}}}}}),
        );
        let steps = &p["properties"]["steps"];
        assert_eq!(steps["description"], "the steps");
        assert_eq!(
            steps["items"],
            json!({"type": "object", "properties": {"description": {"type": "string"}, "n": {"type": "integer", "minimum": 1}}})
        );
    }

    #[test]
    fn strict_closes_every_object_and_requires_every_property() {
        let s = strict(&sample());
        let mut all = vec![];
        walk(&s, &mut all);
        for m in all.iter().filter(|m| m.contains_key("properties")) {
            assert_eq!(m.get("additionalProperties"), Some(&json!(false)), "{m:?}");
            let keys: Vec<&String> = m["properties"].as_object().unwrap().keys().collect();
            assert_eq!(m["required"], json!(keys));
        }
        assert!(s["properties"]["count"].get("maximum").is_none());
    }
}
