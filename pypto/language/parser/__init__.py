"""PyPTO's parser package layout: `pypto.language.parser.text_parser`, `.diagnostics`."""
