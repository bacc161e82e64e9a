"""Mistake: computes KL(q ‖ p), weighting the terms by the student's probabilities instead of the teacher's.
Expect: the KL divergence is taken in the wrong direction; the teacher's p must weigh the terms.
"""

import numpy as np


def log_softmax(z):
    m = z.max(axis=-1, keepdims=True)
    return z - m - np.log(np.sum(np.exp(z - m), axis=-1, keepdims=True))


def distillation_loss(student_logits, teacher_logits, temperature):
    log_p = log_softmax(teacher_logits / temperature)
    log_q = log_softmax(student_logits / temperature)
    q = np.exp(log_q)
    kl = np.sum(q * (log_q - log_p), axis=-1)
    return float(temperature**2 * np.mean(kl))
