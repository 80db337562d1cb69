//! The HTTP behaviour every provider shares: one JSON POST with a per-attempt
//! timeout, retries with exponential backoff on 429, 5xx, timeouts and
//! dropped connections, and the mapping of every failure onto [`ModelError`].
//! Nothing here knows a wire format beyond where providers put their error
//! message.

use crate::model::ModelError;
use serde_json::Value;
use std::io;
use std::time::Duration;

/// First backoff; doubles with every retry.
const BACKOFF_BASE: Duration = Duration::from_millis(250);
/// Longest backoff between two attempts when the server names none.
const BACKOFF_CAP: Duration = Duration::from_secs(8);
/// Longest wait a server's `Retry-After` may impose: past this the loop's
/// user is better served by an error than by a silent stall.
const RETRY_AFTER_CAP: Duration = Duration::from_secs(20);
/// How much of a non-JSON body goes into an error message.
const SNIPPET: usize = 300;

/// A JSON-over-HTTP client bound to one provider's timeout, retry budget and
/// secret.
pub(crate) struct Http {
    agent: ureq::Agent,
    timeout: Duration,
    max_retries: u32,
    /// The API key, kept only so that it can be scrubbed from any message a
    /// server echoes back (some echo part of a rejected key).
    secret: Option<String>,
}

/// Why one attempt failed in a way worth another attempt.
enum Transient {
    Status { status: u16, message: String, retry_after: Option<Duration> },
    Timeout,
    Dropped(String),
}

enum Attempt {
    Done(Value),
    Fatal(ModelError),
    Retry(Transient),
}

impl Http {
    pub(crate) fn new(timeout: Duration, max_retries: u32, secret: Option<String>) -> Http {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            // Statuses are mapped here, with the provider's own message.
            .http_status_as_error(false)
            .user_agent(concat!("glovebox/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        Http { agent, timeout, max_retries, secret }
    }

    /// POSTs `body` as JSON to `url` with `headers` and returns the parsed
    /// JSON answer of the first successful attempt, or the final error.
    pub(crate) fn post_json(
        &self,
        url: &str,
        headers: &[(&'static str, String)],
        body: &Value,
    ) -> Result<Value, ModelError> {
        let bytes = serde_json::to_vec(body).map_err(|e| {
            ModelError::InvalidResponse(format!("the request could not be encoded: {e}"))
        })?;
        let mut attempts: u32 = 0;
        loop {
            attempts += 1;
            let transient = match self.attempt(url, headers, &bytes) {
                Attempt::Done(value) => return Ok(value),
                Attempt::Fatal(error) => return Err(error),
                Attempt::Retry(transient) => transient,
            };
            if attempts > self.max_retries {
                return Err(self.exhausted(transient, attempts));
            }
            let server_asked = match &transient {
                Transient::Status { retry_after, .. } => *retry_after,
                _ => None,
            };
            std::thread::sleep(delay(attempts - 1, server_asked));
        }
    }

    fn attempt(&self, url: &str, headers: &[(&'static str, String)], bytes: &[u8]) -> Attempt {
        let mut request = self.agent.post(url).content_type("application/json");
        for (name, value) in headers {
            request = request.header(*name, value.as_str());
        }
        let mut response = match request.send(bytes) {
            Ok(response) => response,
            Err(error) => return self.classify(error),
        };
        let status = response.status().as_u16();
        let retry_after = retry_after(response.headers());
        let raw = match response.body_mut().read_to_vec() {
            Ok(raw) => raw,
            Err(error) => return self.classify(error),
        };
        let text = String::from_utf8_lossy(&raw);
        match status {
            200..=299 => match serde_json::from_str::<Value>(&text) {
                Ok(value) => Attempt::Done(value),
                Err(e) => Attempt::Fatal(ModelError::InvalidResponse(format!(
                    "HTTP {status} with a body that is not JSON ({e}): {}",
                    self.scrub(&snippet(&text))
                ))),
            },
            401 | 403 => {
                Attempt::Fatal(ModelError::Unauthorized { status, message: self.message(&text) })
            }
            404 => Attempt::Fatal(ModelError::NotFound(self.message(&text))),
            429 | 500..=599 => Attempt::Retry(Transient::Status {
                status,
                message: self.message(&text),
                retry_after,
            }),
            _ => Attempt::Fatal(ModelError::Http { status, message: self.message(&text) }),
        }
    }

    /// Maps a client error: timeouts and dropped connections are worth
    /// another attempt; refusals, DNS and TLS failures are not (they will not
    /// heal within a backoff).
    fn classify(&self, error: ureq::Error) -> Attempt {
        match error {
            ureq::Error::Timeout(_) => Attempt::Retry(Transient::Timeout),
            ureq::Error::Io(e) => match e.kind() {
                io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => Attempt::Retry(Transient::Timeout),
                io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionAborted | io::ErrorKind::BrokenPipe | io::ErrorKind::UnexpectedEof => {
                    Attempt::Retry(Transient::Dropped(self.scrub(&e.to_string())))
                }
                io::ErrorKind::ConnectionRefused => Attempt::Fatal(ModelError::Transport(format!("connection refused ({e})"))),
                _ => Attempt::Fatal(ModelError::Transport(self.scrub(&e.to_string()))),
            },
            ureq::Error::HostNotFound => Attempt::Fatal(ModelError::Transport("the host name did not resolve".into())),
            // Display of these carries the URI only, never header values.
            ureq::Error::BadUri(uri) => Attempt::Fatal(ModelError::Binding(format!("the endpoint URL is not valid: {uri}"))),
            // Header values are never shown: the only one that can be
            // malformed is the API key.
            ureq::Error::Http(_) => Attempt::Fatal(ModelError::Binding(
                "a request header is not valid HTTP (does the API key contain a line break or non-ASCII characters?)".into(),
            )),
            other => Attempt::Fatal(ModelError::Transport(self.scrub(&other.to_string()))),
        }
    }

    fn exhausted(&self, transient: Transient, attempts: u32) -> ModelError {
        match transient {
            Transient::Status { status, message, .. } => {
                ModelError::Unavailable { status, attempts, message }
            }
            Transient::Timeout => ModelError::Timeout(self.timeout),
            Transient::Dropped(message) => ModelError::Transport(format!(
                "the connection dropped on each of {attempts} attempts: {message}"
            )),
        }
    }

    /// The provider's own error message when its body carries one, else the
    /// start of the body.
    fn message(&self, body: &str) -> String {
        let found = serde_json::from_str::<Value>(body).ok().and_then(|v| error_message(&v));
        let message = match found {
            Some(message) => message,
            None if body.trim().is_empty() => "no details in the answer".to_string(),
            None => snippet(body),
        };
        self.scrub(&message)
    }

    fn scrub(&self, text: &str) -> String {
        match &self.secret {
            Some(secret) if !secret.is_empty() => text.replace(secret.as_str(), "[redacted]"),
            _ => text.to_string(),
        }
    }
}

/// Where providers put the reason: OpenAI and Anthropic `error.message`,
/// Ollama `error` as a string, vLLM `message`, some proxies `detail`.
pub(crate) fn error_message(body: &Value) -> Option<String> {
    let candidates = [
        body.pointer("/error/message"),
        body.get("error"),
        body.get("message"),
        body.get("detail"),
    ];
    candidates.into_iter().flatten().find_map(|v| v.as_str().map(str::to_string))
}

/// The wait before retry number `retry` (0-based): what the server asked
/// for, capped, else exponential backoff, capped.
fn delay(retry: u32, server_asked: Option<Duration>) -> Duration {
    if let Some(asked) = server_asked {
        return asked.min(RETRY_AFTER_CAP);
    }
    BACKOFF_BASE.saturating_mul(2u32.saturating_pow(retry.min(16))).min(BACKOFF_CAP)
}

/// OpenAI sends `retry-after-ms`, the HTTP standard (and Anthropic) sends
/// `retry-after` in seconds; an HTTP-date form falls back to backoff.
fn retry_after(headers: &ureq::http::HeaderMap) -> Option<Duration> {
    let read = |name: &str| {
        headers.get(name).and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<f64>().ok())
    };
    let seconds = read("retry-after-ms").map(|ms| ms / 1000.0).or_else(|| read("retry-after"))?;
    if !seconds.is_finite() || seconds < 0.0 {
        return None;
    }
    Some(Duration::from_secs_f64(seconds.min(RETRY_AFTER_CAP.as_secs_f64())))
}

fn snippet(text: &str) -> String {
    let trimmed = text.trim();
    match trimmed.char_indices().nth(SNIPPET) {
        Some((cut, _)) => format!("{}…", &trimmed[..cut]),
        None => trimmed.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn backoff_doubles_and_is_capped() {
        assert_eq!(delay(0, None), Duration::from_millis(250));
        assert_eq!(delay(1, None), Duration::from_millis(500));
        assert_eq!(delay(3, None), Duration::from_secs(2));
        assert_eq!(delay(30, None), BACKOFF_CAP);
    }

    #[test]
    fn retry_after_is_honoured_but_capped() {
        assert_eq!(delay(0, Some(Duration::from_secs(3))), Duration::from_secs(3));
        assert_eq!(delay(0, Some(Duration::from_secs(3600))), RETRY_AFTER_CAP);
    }

    #[test]
    fn error_messages_are_found_where_each_provider_puts_them() {
        assert_eq!(
            error_message(&json!({"error": {"message": "m1", "type": "x"}})).as_deref(),
            Some("m1")
        );
        assert_eq!(
            error_message(
                &json!({"type": "error", "error": {"type": "overloaded_error", "message": "m2"}})
            )
            .as_deref(),
            Some("m2")
        );
        assert_eq!(error_message(&json!({"error": "m3"})).as_deref(), Some("m3"));
        assert_eq!(
            error_message(&json!({"object": "error", "message": "m4"})).as_deref(),
            Some("m4")
        );
        assert_eq!(error_message(&json!({"error": {"code": 1}})), None);
    }

    #[test]
    fn the_secret_never_survives_in_a_message() {
        let http = Http::new(Duration::from_secs(1), 0, Some("sk-secret-123".into()));
        let message =
            http.message(r#"{"error":{"message":"Incorrect API key provided: sk-secret-123."}}"#);
        assert!(!message.contains("sk-secret-123"), "{message}");
    }

    #[test]
    fn snippets_cut_on_a_char_boundary() {
        let long = "é".repeat(SNIPPET + 10);
        assert_eq!(snippet(&long).chars().count(), SNIPPET + 1);
    }
}
