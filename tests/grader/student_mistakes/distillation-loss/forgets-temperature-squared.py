"""Mistake: returns the mean KL divergence without multiplying it by T².
Expect: the loss is too small by a factor T²; multiply by temperature ** 2.
"""

import numpy as np


def log_softmax(z):
    m = z.max(axis=-1, keepdims=True)
    return z - m - np.log(np.sum(np.exp(z - m), axis=-1, keepdims=True))


def distillation_loss(student_logits, teacher_logits, temperature):
    log_p = log_softmax(teacher_logits / temperature)
    log_q = log_softmax(student_logits / temperature)
    kl_per_row = (np.exp(log_p) * (log_p - log_q)).sum(axis=-1)
    return float(kl_per_row.mean())
