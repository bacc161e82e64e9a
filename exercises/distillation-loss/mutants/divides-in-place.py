import numpy as np


def log_softmax(z):
    shifted = z - z.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def distillation_loss(student_logits, teacher_logits, temperature):
    student_logits /= temperature
    teacher_logits /= temperature
    log_q = log_softmax(student_logits)
    log_p = log_softmax(teacher_logits)
    kl = (np.exp(log_p) * (log_p - log_q)).sum(axis=-1)
    return float(temperature**2 * kl.mean())
