"""Mistake: takes the softmax down each column (over the examples, axis 0) instead of over each row's classes.
Expect: the softmax is over the wrong axis; each row's classes (the last axis) must sum to 1.
"""

import numpy as np


def log_softmax(z):
    m = np.max(z, axis=0)
    shifted = z - m
    return shifted - np.log(np.sum(np.exp(shifted), axis=0))


def distillation_loss(student_logits, teacher_logits, temperature):
    T = temperature
    log_p = log_softmax(teacher_logits / T)
    log_q = log_softmax(student_logits / T)
    p = np.exp(log_p)
    n = student_logits.shape[0]
    total = 0.0
    for i in range(n):
        total += np.sum(p[i] * (log_p[i] - log_q[i]))
    return float(T * T * total / n)
