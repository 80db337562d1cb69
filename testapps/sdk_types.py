"""Checks wire shapes against the official SDKs' own types; exits non-zero
naming the first value that does not fit.

Input (a JSON file): {"anthropic": {"toolset": ..., "blocks": [...],
"results": [...]}, "gemini": {"tool": ..., "model_turn": ..., "responses":
[...]}, "openai": {"calls": [...], "outputs": [...]}}, any part optional.
- OpenAI (`openai`): each call as the GA `ResponseComputerToolCall` (its
  batch of `actions`), each answer as the `ComputerCallOutput` input item,
  answering one of the calls, in their order.
- Anthropic (`anthropic` on PyPI): the toolset definition as
  `ComputerToolset20260801Param`, each member block Claude sent as the
  `ComputerToolUseBlock` union, each answer as `ToolResultBlockParam` (its
  content consumed, so every block is validated).
- Gemini (`google-genai`): the tool as `types.Tool` (its `computer_use` set),
  the model turn as `types.Content`, each answer as a `types.Part` whose
  `function_response` names the call and carries a PNG.
"""
import json
import sys


def check_anthropic(part):
    from pydantic import TypeAdapter
    from anthropic.types import ComputerToolUseBlock, ComputerToolset20260801Param, ToolResultBlockParam

    definition = TypeAdapter(ComputerToolset20260801Param).validate_python(part["toolset"])
    assert definition["type"] == "computer_toolset_20260801", definition
    for block in part["blocks"]:
        parsed = TypeAdapter(ComputerToolUseBlock).validate_python(block)
        assert parsed.name == block["name"], parsed
    results = TypeAdapter(list[ToolResultBlockParam])
    for result in results.validate_python(part["results"]):
        content = list(result.get("content") or [])
        assert content, f"{result['tool_use_id']}: an empty result"
        for block in content:
            assert block["type"] in ("text", "image"), block
    print(f"anthropic: {len(part['blocks'])} blocks and {len(part['results'])} results fit the SDK's types")


def check_gemini(part):
    from google.genai import types

    tool = types.Tool.model_validate(part["tool"])
    assert tool.computer_use is not None and tool.computer_use.environment is not None, tool
    turn = types.Content.model_validate(part["model_turn"])
    calls = [p.function_call for p in turn.parts if p.function_call]
    assert calls, turn
    for answer in part["responses"]:
        response = types.Part.model_validate(answer).function_response
        assert response is not None and response.name in {c.name for c in calls}, answer
        assert response.parts and response.parts[0].inline_data.mime_type == "image/png", response
    print(f"gemini: the tool, {len(calls)} calls and {len(part['responses'])} responses fit the SDK's types")


def check_openai(part):
    from pydantic import TypeAdapter
    from openai.types.responses import ResponseComputerToolCall
    from openai.types.responses.response_input_item_param import ComputerCallOutput

    calls = [ResponseComputerToolCall.model_validate(c) for c in part["calls"]]
    assert all(c.actions for c in calls), calls
    outputs = TypeAdapter(list[ComputerCallOutput]).validate_python(part["outputs"])
    answered = [o["call_id"] for o in outputs]
    assert answered == [c.call_id for c in calls][: len(answered)], answered
    for output in outputs:
        assert output["output"]["type"] == "computer_screenshot", output
        assert output["output"]["image_url"].startswith("data:image/png;base64,"), output["call_id"]
    print(f"openai: {len(calls)} calls and {len(outputs)} outputs fit the SDK's types")


data = json.load(open(sys.argv[1]))
if "openai" in data:
    check_openai(data["openai"])
if "anthropic" in data:
    check_anthropic(data["anthropic"])
if "gemini" in data:
    check_gemini(data["gemini"])
