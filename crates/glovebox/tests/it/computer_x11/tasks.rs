//! The `computer` tool as a task of the 2026-07-28 protocol: asking mid-run
//! through the task, and cancelling it as Stop.

use super::*;

/// A client of the 2026-07-28 protocol over stdio, written out by hand
/// (no SDK ships a tasks client yet): every request carries the version
/// and capabilities — form elicitation and the tasks extension.
struct CurrentClient {
    server: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
    next_id: u64,
}

impl CurrentClient {
    fn start(mut command: std::process::Command) -> CurrentClient {
        let mut server = command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let (stdin, stdout) =
            (server.stdin.take().unwrap(), BufReader::new(server.stdout.take().unwrap()));
        CurrentClient { server, stdin, stdout, next_id: 1 }
    }

    /// The result (or error) of one request.
    fn request(&mut self, method: &str, mut params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "glovebox-test", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}, "extensions": {"io.modelcontextprotocol/tasks": {}}}
        });
        writeln!(
            self.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        )
        .unwrap();
        loop {
            let mut line = String::new();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "the server closed");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return if message["error"].is_null() {
                    message["result"].clone()
                } else {
                    json!({"error": message["error"]})
                };
            }
        }
    }

    /// Polls the task until it is `wanted` (answering every question it
    /// asks with `answer`); the status messages seen on the way.
    fn poll_until(&mut self, id: &str, wanted: &str, answer: Value) -> (Value, Vec<String>) {
        let mut messages = vec![];
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let task = self.request("tasks/get", json!({"taskId": id}));
            if let Some(message) = task["statusMessage"].as_str() {
                if messages.last().map(String::as_str) != Some(message) {
                    messages.push(message.to_owned());
                }
            }
            if task["status"] == wanted {
                return (task, messages);
            }
            if task["status"] == "input_required" {
                let (key, request) =
                    task["inputRequests"].as_object().unwrap().iter().next().unwrap();
                messages.push(format!("asked: {}", request["params"]["message"]));
                let ack = self.request(
                    "tasks/update",
                    json!({"taskId": id, "inputResponses": {key: answer.clone()}}),
                );
                assert_eq!(ack["resultType"], "complete", "{ack}");
            }
            assert!(
                !["completed", "cancelled", "failed"].contains(&task["status"].as_str().unwrap()),
                "the task ended {task}"
            );
            assert!(std::time::Instant::now() < deadline, "the task never became {wanted}: {task}");
            std::thread::sleep(std::time::Duration::from_millis(
                task["pollIntervalMs"].as_u64().unwrap_or(200).min(200),
            ));
        }
    }

    /// Starts a `computer` run: the run's approval round, then the task.
    fn start_run(&mut self, arguments: Value) -> String {
        let asked = self.request("tools/call", json!({"name": "computer", "arguments": arguments}));
        assert_eq!(asked["resultType"], "input_required", "the run is approved first: {asked}");
        let key = asked["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
        let accept = json!({"action": "accept", "content": {"approve": true}});
        let created = self
            .request("tools/call", json!({"name": "computer", "arguments": arguments, "inputResponses": {key: accept}, "requestState": asked["requestState"]}));
        assert_eq!(
            (created["resultType"].as_str(), created["status"].as_str()),
            (Some("task"), Some("working")),
            "{created}"
        );
        created["taskId"].as_str().unwrap().to_owned()
    }
}

impl Drop for CurrentClient {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

fn bound_mcp(sandbox: &Sandbox, home: &Path, base: &str) -> std::process::Command {
    let mut command = glovebox(sandbox, home);
    command
        .arg("mcp")
        .env("GLOVEBOX_ENABLED", "true")
        .env("GLOVEBOX_MODEL_PROVIDER", "openai-compatible")
        .env("GLOVEBOX_MODEL_MODEL", "scripted")
        .env("GLOVEBOX_MODEL_BASE_URL", base);
    command
}

#[test]
fn the_computer_tool_runs_as_a_task_on_2026_07_28_asking_mid_run_through_the_task() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let target = Fixture::launch(
        sandbox,
        &unique_title("Computer task"),
        &["--no-password", "--x", "40", "--y", "40"],
    );
    let sentinel = Fixture::launch(
        sandbox,
        &unique_title("Computer task user"),
        &["--no-password", "--x", "900", "--y", "60"],
    );
    sentinel.activate();
    let pointer = sandbox.pointer().unwrap();
    // A model that thinks a little, so a client polling every 200 ms sees each step.
    let (base, seen) = model_server_with(script, std::time::Duration::from_millis(400));
    let home = scratch("computer-task");
    let mut client = CurrentClient::start(bound_mcp(sandbox, &home, &base));
    let arguments = json!({"instruction": "Put Ada Lovelace in the name field and submit the form", "max_steps": 4, "window": format!("{}/{}", target.pid(), target.title)});
    let id = client.start_run(arguments);
    // Submit is consequential: the question comes as the task's input request.
    let (done, messages) = client.poll_until(
        &id,
        "completed",
        json!({"action": "accept", "content": {"approve": true}}),
    );
    let text = done["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("the model reported the task done") && text.contains("Delivered 2 actions"),
        "{text}"
    );
    assert!(
        messages.iter().any(|m| m.starts_with("asked: ") && m.contains("\\\"Submit\\\"")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.starts_with("step 1.") && m.contains("delivered")),
        "progress per step: {messages:?}"
    );
    let state = target.wait_state("form submitted", |s| s["clicks"]["submit"] == 1);
    assert_eq!(state["values"]["name"], "Ada Lovelace");
    assert_eq!(state["window_active"], false, "in the background");
    assert_eq!(
        sentinel.state().unwrap()["window_active"],
        true,
        "the user's window kept the focus"
    );
    assert_eq!(sandbox.pointer().unwrap(), pointer, "the real pointer did not move");
    assert_eq!(seen.lock().unwrap().len(), 3);
    // A task is its client's: an unknown id is an error, not an empty task.
    let other = client.request("tasks/get", json!({"taskId": "0".repeat(32)}));
    assert!(other["error"]["message"].as_str().is_some_and(|m| m.contains("no task")), "{other}");
}

#[test]
fn cancelling_a_computer_task_is_stop_and_nothing_more_is_delivered() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let target =
        Fixture::launch(sandbox, &unique_title("Computer task cancelled"), &["--no-password"]);
    let (base, seen) = model_server_with(cancel_forever, std::time::Duration::from_millis(300));
    let home = scratch("computer-task-cancel");
    let mut client = CurrentClient::start(bound_mcp(sandbox, &home, &base));
    let arguments = json!({"instruction": "Press Cancel until told otherwise", "max_steps": 40, "window": format!("{}/{}", target.pid(), target.title)});
    let id = client.start_run(arguments);
    target.wait_state("two clicks delivered", |s| s["clicks"]["cancel"].as_u64() >= Some(2));
    let ack = client.request("tasks/cancel", json!({"taskId": id}));
    assert_eq!(ack["resultType"], "complete", "{ack}");
    let (cancelled, messages) = client.poll_until(&id, "cancelled", json!({"action": "decline"}));
    assert!(
        cancelled["statusMessage"].as_str().unwrap().starts_with("cancelled (Stop)"),
        "{cancelled}"
    );
    assert!(
        messages.iter().any(|m| m.contains("step 1.") && m.contains("Cancel")),
        "progress per step: {messages:?}"
    );
    let clicks = target.state().unwrap()["clicks"]["cancel"].as_u64().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(800));
    assert_eq!(
        target.state().unwrap()["clicks"]["cancel"].as_u64().unwrap(),
        clicks,
        "nothing is delivered after the cancel"
    );
    assert!(seen.lock().unwrap().len() < 40);
    // Stop ended the grant: the next call does not act on it.
    let after = client
        .request("tools/call", json!({"name": "observe", "arguments": {"screenshot": false}}));
    let text = after["content"][0]["text"].as_str().unwrap_or_default();
    assert!(after["isError"] == true && text.starts_with("COMPUTER_"), "{after}");
}
