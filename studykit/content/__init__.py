"""The content model (notes, sections, claims, decks, cards), its JSON Schemas, YAML loading with
every problem at file:line:col, citations and images."""
