"""PEARL training: configuration, data, character-encoder pretraining and the loop."""

from pearl.training.char_pretrain import pretrain_char_encoder, vocabulary
from pearl.training.config import TrainConfig, load_config
from pearl.training.dataset import Batch, TrainingData
from pearl.training.trainer import Trainer, TrainResult, average_weights, train

__all__ = ["Batch", "TrainConfig", "TrainResult", "Trainer", "TrainingData",
           "average_weights", "load_config", "pretrain_char_encoder", "train", "vocabulary"]
