"""The word service: the HTTP face (Flask) over the word engine in ``dictionaries``."""
