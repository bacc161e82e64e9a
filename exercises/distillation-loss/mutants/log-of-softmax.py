import numpy as np


def softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def distillation_loss(student_logits, teacher_logits, temperature):
    q = softmax(student_logits / temperature)
    p = softmax(teacher_logits / temperature)
    kl = (p * (np.log(p) - np.log(q))).sum(axis=-1)
    return float(temperature**2 * kl.mean())
