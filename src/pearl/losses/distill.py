"""Distillation from a teacher: match the student's in-batch similarity distribution."""

from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = ["similarity_distillation"]


def similarity_distillation(
    student: torch.Tensor, teacher: torch.Tensor, temperature: float = 0.05
) -> torch.Tensor:
    """KL divergence from the teacher's to the student's in-batch similarity distribution.

    For each phrase ``i`` of the batch, both models' cosine similarities to the other
    phrases ``j != i`` are turned into a distribution by a softmax at ``temperature``; the
    loss is the mean over ``i`` of ``KL(teacher_i || student_i)``. The two models may have
    different widths: only their similarity structure is compared.

    Parameters
    ----------
    student : Tensor of shape (batch, d_student)
    teacher : Tensor of shape (batch, d_teacher)
        Fixed targets (no gradient flows into them).
    temperature : float, default=0.05
    """
    if student.dim() != 2 or teacher.dim() != 2 or len(student) != len(teacher):
        raise ValueError(
            f"student and teacher must be (batch, d) with the same batch, got "
            f"{tuple(student.shape)} and {tuple(teacher.shape)}"
        )
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    if len(student) < 3:  # at least two others per row for a distribution
        return student.sum() * 0.0
    s = F.normalize(student, dim=-1)
    t = F.normalize(teacher.detach().to(student.dtype), dim=-1)
    mask = torch.eye(len(s), dtype=torch.bool, device=s.device)
    s_logits = (s @ s.T / temperature).masked_fill(mask, float("-inf"))
    t_logits = (t @ t.T / temperature).masked_fill(mask, float("-inf"))
    log_p_s = F.log_softmax(s_logits, dim=-1).masked_fill(mask, 0.0)
    p_t = F.softmax(t_logits, dim=-1)
    log_p_t = F.log_softmax(t_logits, dim=-1).masked_fill(mask, 0.0)
    return (p_t * (log_p_t - log_p_s)).sum(-1).mean()
