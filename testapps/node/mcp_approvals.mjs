// Drives glovebox through an official MCP TypeScript SDK as an agent built on
// it would, answering approval prompts as a user would, and reports what
// happened as one JSON line on stdout (the same report as
// ../sdk_mcp_approvals.py).
//
// The client asks the window named TITLE for its Name field and its Submit
// button (another label in SUBMIT_BUTTON: a real application's OK), sets
// the name, and clicks the button. Every approval prompt
// reaches the client's `elicitation/create` handler: as a server request on
// handshake-era connections, through input-required results the SDK
// fulfils and retries on 2026-07-28.
//
// Usage: node mcp_approvals.mjs SDK ANSWER TITLE NAME COMMAND [ARGS...]
//   SDK     v1 (@modelcontextprotocol/sdk, its only mode), or v2
//           (@modelcontextprotocol/client) in one of its modes: v2-default,
//           v2-auto, v2-2026-07-28
//   ANSWER  accept | decline | cancel
//   COMMAND the MCP server to start over stdio, or an http:// URL with the
//           bearer token in GLOVEBOX_TOKEN
const [sdk, answer, title, name, ...server] = process.argv.slice(2);

const prompts = [];
function decide(message) {
  prompts.push(message);
  return answer === "accept" ? { action: "accept", content: { approve: true } } : { action: answer };
}

async function connectV1() {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const { ElicitRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const client = new Client({ name: "glovebox-test-v1", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => decide(request.params.message));
  const transport = server[0].startsWith("http://")
    ? new StreamableHTTPClientTransport(new URL(server[0]), { requestInit: { headers: { Authorization: `Bearer ${process.env.GLOVEBOX_TOKEN}` } } })
    : new StdioClientTransport({ command: server[0], args: server.slice(1), env: process.env, stderr: "inherit" });
  // v1 hands the version it adopted only to a transport that wants it.
  let protocol;
  const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version) => {
    protocol = version;
    setProtocolVersion?.(version);
  };
  await client.connect(transport);
  return { client, protocol };
}

async function connectV2(mode) {
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
  const options = { capabilities: { elicitation: { form: {} } } };
  if (mode === "auto") options.versionNegotiation = { mode: "auto" };
  if (mode === "2026-07-28") options.versionNegotiation = { mode: { pin: "2026-07-28" } };
  const client = new Client({ name: "glovebox-test-v2", version: "1.0.0" }, options);
  client.setRequestHandler("elicitation/create", async (request) => decide(request.params.message));
  const transport = server[0].startsWith("http://")
    ? new StreamableHTTPClientTransport(new URL(server[0]), { requestInit: { headers: { Authorization: `Bearer ${process.env.GLOVEBOX_TOKEN}` } } })
    : new StdioClientTransport({ command: server[0], args: server.slice(1), env: process.env, stderr: "inherit" });
  await client.connect(transport);
  return { client, protocol: client.getNegotiatedProtocolVersion() };
}

const textOf = (result) => result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");

function idOnLine(text, needle) {
  const line = text.split("\n").find((l) => l.includes(needle) && l.includes("@e"));
  if (!line) throw new Error(`no element line with ${needle} in:\n${text}`);
  return line.split(/\s+/).find((w) => w.startsWith("@e")).slice(1);
}

const { client, protocol } = sdk === "v1" ? await connectV1() : await connectV2(sdk.replace(/^v2-/, ""));
const report = { protocol, prompts, calls: {} };
const listed = textOf(await client.callTool({ name: "list_windows", arguments: { query: title } }));
const window = listed.split("\n")[1].split(/\s+/)[0];
const seen = await client.callTool({ name: "observe", arguments: { window, screenshot: false } });
report.observed_structured = seen.structuredContent ?? null;
const field = idOnLine(textOf(seen), '"Name"');
const submit = idOnLine(textOf(seen), `push button "${process.env.SUBMIT_BUTTON ?? "Submit"}"`);
for (const [tool, args] of [
  ["set_value", { target: { element: field }, text: name }],
  ["click", { target: { element: submit } }],
]) {
  const result = await client.callTool({ name: tool, arguments: args });
  report.calls[tool] = { error: Boolean(result.isError), text: textOf(result), structured: result.structuredContent ?? null };
}
console.log(JSON.stringify(report));
await client.close();
