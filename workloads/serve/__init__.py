"""`cardbench run serve`: load on the user's OpenAI-compatible inference server, measured as a user sees it."""
