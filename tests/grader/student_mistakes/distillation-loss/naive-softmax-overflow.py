"""Mistake: computes the softmax directly with np.exp and then takes its log, which overflows or gives log(0) for large
logits.
Expect: the result is nan/inf for logits in the thousands; use the log-sum-exp trick (subtract the row maximum).
"""

import numpy as np


def softmax(z):
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def distillation_loss(student_logits, teacher_logits, temperature):
    p = softmax(teacher_logits / temperature)
    q = softmax(student_logits / temperature)
    kl = np.sum(p * (np.log(p) - np.log(q)), axis=1)
    return float(temperature**2 * kl.mean())
