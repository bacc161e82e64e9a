"""Courses: their exercises and due dates, joining them, the instructor's dashboard, the gradebook and regrading."""
