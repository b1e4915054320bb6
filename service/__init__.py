"""The word service: the HTTP face (Flask) over the word engine in ``dictionaries``."""
import os

from dictionaries.i18n import register_catalog

register_catalog("service", os.path.join(os.path.dirname(os.path.abspath(__file__)), "locale"))
