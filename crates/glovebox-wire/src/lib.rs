//! Executors for native computer-use models (DESIGN.md §1, §6): an OpenAI GA
//! `computer_call` or an Anthropic `computer` tool_use becomes host actions,
//! and the answer goes back in exactly the provider's result shape.
#![forbid(unsafe_code)]
