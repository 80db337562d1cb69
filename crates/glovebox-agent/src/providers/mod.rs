//! Model providers speaking real wire formats: OpenAI Responses, Anthropic
//! Messages and OpenAI-compatible Chat Completions. (MCP sampling lives in
//! `glovebox-mcp`, which owns the MCP connection.)

use crate::model::{Model, ModelBinding, ModelError};

/// The model `binding` names, ready to decide. MCP sampling cannot be bound
/// here (it needs the MCP connection): `ModelError::Binding`.
pub fn bind(binding: &ModelBinding) -> Result<Box<dyn Model>, ModelError> {
    let _ = binding;
    Err(ModelError::Binding("providers are not built yet".into()))
}
