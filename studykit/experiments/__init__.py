"""Live PyTorch experiments. Importing this package (and the registry) never imports torch."""
