//! A tiny HTTP/1.1 server on loopback for the provider tests: one
//! connection per scripted step, each request recorded (method, path,
//! lower-cased headers, JSON body), each answered as scripted.

use serde_json::Value;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the server does with one connection.
pub enum Script {
    Reply {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: String,
    },
    /// Reads the request and never answers.
    Hang,
    /// Reads the request and closes the connection without a word.
    Drop,
}

pub fn ok(body: Value) -> Script {
    Script::Reply { status: 200, headers: vec![], body: body.to_string() }
}

pub fn status(status: u16, body: Value) -> Script {
    Script::Reply { status, headers: vec![], body: body.to_string() }
}

#[derive(Debug)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: HashMap<String, String>,
    pub body: Value,
}

pub struct Server {
    pub base: String,
    pub requests: Arc<Mutex<Vec<Recorded>>>,
}

impl Server {
    pub fn requests(&self) -> std::sync::MutexGuard<'_, Vec<Recorded>> {
        self.requests.lock().unwrap()
    }
    pub fn count(&self) -> usize {
        self.requests().len()
    }
}

/// Serves one connection per script entry, in order, recording each request.
pub fn serve(script: Vec<Script>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let requests = Arc::new(Mutex::new(Vec::new()));
    let recorded = requests.clone();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for step in script {
            let Ok((mut stream, _)) = listener.accept() else { return };
            let Some(request) = read_request(&mut stream) else { return };
            recorded.lock().unwrap().push(request);
            match step {
                Script::Reply { status, headers, body } => {
                    let mut head =
                        format!("HTTP/1.1 {status} Scripted\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n", body.len());
                    for (name, value) in headers {
                        head.push_str(&format!("{name}: {value}\r\n"));
                    }
                    head.push_str("\r\n");
                    let _ = stream.write_all(head.as_bytes());
                    let _ = stream.write_all(body.as_bytes());
                    let _ = stream.flush();
                }
                Script::Hang => held.push(stream),
                Script::Drop => drop(stream),
            }
        }
        // Hung connections stay open well past any client timeout used here.
        std::thread::sleep(Duration::from_secs(5));
        drop(held);
    });
    Server { base, requests }
}

fn read_request(stream: &mut TcpStream) -> Option<Recorded> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = HashMap::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_string());
    }
    let length: usize = headers.get("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    Some(Recorded { method, path, headers, body })
}
