"""CLEAR's twenty graph tasks: the formal objects (``model``), graph primitives on
mixed graphs (``graph``), the ID algorithm (``identify``) and one solver per task
(``tasks``).  The independent checker is ``check``, which imports nothing here but
``model``."""
