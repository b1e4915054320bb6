"""A table's history: the figures of its games (``stats``), each game as a picture (``chart``), the shareable page
(``page``) and the ``uw-referee stats`` command (``cli``). Its own catalog, so its sentences travel together.

This package imports nothing but its catalog's registration at load time.
"""
import os

from dictionaries.i18n import register_catalog

register_catalog("history", os.path.join(os.path.dirname(os.path.abspath(__file__)), "locale"))
