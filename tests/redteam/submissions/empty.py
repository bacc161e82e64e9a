# Malformed: nothing but this comment (an empty solution).
