"""The screen-free study core: the `StudySession` facade and its parts (the study flow, the card
browser, search, stats, quiz questions, and the text a card shows). The app and the command line
talk to this layer, never to SQL or the scheduler."""
