"""From cards to a request: assembly, the hidden prefix, attachments, and the context figures."""
