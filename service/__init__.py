"""The FastAPI app, storage, CLI and settings: HTTP and the database live here and only here."""
