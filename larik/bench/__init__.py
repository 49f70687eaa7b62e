"""larik bench: judge models by outcome on self-checking coding tasks."""
