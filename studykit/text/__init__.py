"""Text and maths rendering: LaTeX and markdown to terminal Unicode and to MathJax HTML, the
maths scanner, clozes, line breaks and the HTML rule. Knows nothing of notes or decks."""
