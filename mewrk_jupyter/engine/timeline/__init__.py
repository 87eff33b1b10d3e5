"""The stored timeline of a session (database, in-memory mirror, revision, events) and a person's edits."""
