//! `glovebox serve` for tests that speak HTTP to it: started in a sandbox
//! with a home of the test's own, and one plain HTTP/1.1 POST at a time
//! (no client library, so the bytes on the wire are what the test wrote).

use glovebox_sandbox::Sandbox;
use serde_json::Value;
use std::path::Path;

/// A running `glovebox serve`: the address and token it announced.
pub struct Served {
    pub child: std::process::Child,
    pub address: String,
    pub token: String,
}

impl Served {
    /// Starts `binary serve --port 0` in `sandbox` with `home` as its home and `env` on top.
    pub fn start(sandbox: &Sandbox, binary: &str, home: &Path, env: &[(&str, &str)]) -> Served {
        use std::io::BufRead as _;
        let mut command = sandbox.command_in_home(binary, home);
        command
            .args(["serve", "--port", "0"])
            .env("GLOVEBOX_ENABLED", "true")
            .stdout(std::process::Stdio::piped());
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command.spawn().unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let announced: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("serve printed {line:?}: {e}"));
        let address = announced["url"]
            .as_str()
            .unwrap()
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_owned();
        Served { child, address, token: announced["token"].as_str().unwrap().to_owned() }
    }

    /// A POST with the server's token.
    pub fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        post(&self.address, path, Some(&self.token), &body.to_string())
    }

    /// Ends the server as a crash would (SIGKILL), and reaps it.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 POST over a fresh connection; the status and the JSON body.
pub fn post(address: &str, path: &str, token: Option<&str>, body: &str) -> (u16, Value) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    let auth = token.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n{auth}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    stream.set_read_timeout(Some(std::time::Duration::from_secs(30))).unwrap();
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    let status = response.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = response
        .split("\r\n\r\n")
        .nth(1)
        .and_then(|b| serde_json::from_str(b.trim()).ok())
        .unwrap_or(Value::Null);
    (status, body)
}
