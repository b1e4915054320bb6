"""The developers' tools: the translation catalogs (``catalogs``) and the dictionary build
(``build_dictionary``). Outside the wheel: run them from a development checkout (``make``), where the
tests import them too."""
