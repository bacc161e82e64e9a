import numpy as np  # noqa: F401  (you will need it)


def distillation_loss(student_logits, teacher_logits, temperature):
    """The knowledge-distillation loss of a batch.

    student_logits, teacher_logits: shape (n, C), one row of class scores per example.
    temperature: T > 0; both sets of logits are divided by it before the softmax.
    Returns T² · (the mean over the n rows of KL(softmax(teacher / T) ‖ softmax(student / T))),
    as a float.
    """
    raise NotImplementedError("soften both distributions by T, then the KL divergence, row by row")
