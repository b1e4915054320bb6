"""The live board: a read-only web view of the referee's games and a word judge, for the whole table.

``create_app`` (in ``referee.board.app``) builds the Flask app; ``uw-referee board`` serves it with
gunicorn. This package imports nothing but its catalog's registration at load time, so ``uw-referee
--help`` stays fast.
"""
import os

from dictionaries.i18n import register_catalog

register_catalog("board", os.path.join(os.path.dirname(os.path.abspath(__file__)), "locale"))
