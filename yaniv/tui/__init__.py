"""The terminal game (Textual): ``yaniv play``. Textual is imported only by ``app``."""
