"""The golden generators behind scripts/gen-goldens: one module per family
(eval.py with its eval_*.py and collective.py, indexing.py, linalg.py,
lapack.py), each with generate(writer, name_filter); core.py holds the
literal machinery they share and writer.py the shared tail (write or
--check, counts, files no generator accounts for)."""
