"""A session's settings: their model and store, the checks a change passes first and the sentence that
says it, and the folder's preferences that new sessions start from."""
