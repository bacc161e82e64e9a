"""The web application: pages, API, queue and persistence around the grader."""
