"""Reports of grading runs for people and tools: text for a terminal, JUnit XML for CI."""
