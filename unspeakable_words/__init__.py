"""What the project's faces share and the word engine need not know: the project's version (here only;
pyproject.toml reads it from here) and Click in the project's languages (``unspeakable_words.click_i18n``).

The referee (``uw-referee``, the board) and the word service (``uw-service``) both stand on the word
engine in ``dictionaries``; this package stands beside them, so that the engine names no face.
"""

#: The project's version: the package, ``uw-referee --version`` and the service's ``service_version``.
__version__ = "0.4.0"
