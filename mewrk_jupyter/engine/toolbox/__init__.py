"""The toolbox: what tools a session's model is offered and on what terms — its policy and safety levels,
MCP servers, hooks, the watch on files, the secrets kept from commands, the tool lock held while the
prompt cache is warm, the approvals granted for a folder, and the engine's own tools (subagents, handoff)."""
