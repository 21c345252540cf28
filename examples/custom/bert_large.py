"""BERT-large with a SQuAD span head (the NVIDIA DeepLearningExamples `BertForQuestionAnswering`),
written as a plain custom module: 335,150,082 parameters (the pooler's 1,049,600 get no gradient in
SQuAD fine-tuning, as in the original; here it is computed but unused, as there).

24 post-LN encoder layers, hidden 1024, 16 heads of 64, feed-forward 4096 with GELU, dropout 0.1,
vocabulary 30,522 padded to 30,528, 512 positions, 2 segments, sequence 384 with an additive
attention mask. Attention is written out (QK^T / 8 + mask, softmax, dropout, x V) as that code does.

The planner's bench feeds custom models a float tensor of `input_shape`; this module turns it into
token ids (the values do not matter for timing). Its output is the start and end logits of every
position side by side (`outputs: 768` = 2 x 384), so the bench's cross-entropy stands in for the
mean of SQuAD's two cross-entropies.
"""

import math

import torch
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, hidden: int, heads: int, dropout: float):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.query, self.key, self.value = (
            nn.Linear(hidden, hidden),
            nn.Linear(hidden, hidden),
            nn.Linear(hidden, hidden),
        )
        self.dropout = nn.Dropout(dropout)

    def split(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x, mask):
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim) + mask
        probs = self.dropout(torch.softmax(scores, dim=-1))
        context = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        return context.view(x.shape)


class Layer(nn.Module):
    def __init__(self, hidden: int, heads: int, ff: int, dropout: float):
        super().__init__()
        self.attention = SelfAttention(hidden, heads, dropout)
        self.attention_out = nn.Linear(hidden, hidden)
        self.attention_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.intermediate = nn.Linear(hidden, ff)
        self.act = nn.GELU()
        self.output = nn.Linear(ff, hidden)
        self.output_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask):
        x = self.attention_norm(x + self.dropout(self.attention_out(self.attention(x, mask))))
        return self.output_norm(x + self.dropout(self.output(self.act(self.intermediate(x)))))


class BertForQuestionAnswering(nn.Module):
    def __init__(
        self,
        vocab: int = 30528,
        hidden: int = 1024,
        layers: int = 24,
        heads: int = 16,
        ff: int = 4096,
        positions: int = 512,
        segments: int = 2,
        dropout: float = 0.1,
    ):
        super().__init__()
        self.vocab = vocab
        self.word_embeddings = nn.Embedding(vocab, hidden)
        self.position_embeddings = nn.Embedding(positions, hidden)
        self.token_type_embeddings = nn.Embedding(segments, hidden)
        self.embedding_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.embedding_dropout = nn.Dropout(dropout)
        self.layers = nn.ModuleList(Layer(hidden, heads, ff, dropout) for _ in range(layers))
        self.pooler = nn.Linear(hidden, hidden)
        self.pooler_act = nn.Tanh()
        self.qa_outputs = nn.Linear(hidden, 2)

    def forward(self, x):
        tokens = x.to(torch.long).abs().remainder(self.vocab)
        b, s = tokens.shape
        positions = torch.arange(s, device=tokens.device).unsqueeze(0)
        segments = torch.zeros_like(tokens)
        mask = torch.zeros(
            b, 1, 1, s, device=tokens.device, dtype=self.word_embeddings.weight.dtype
        )
        h = (
            self.word_embeddings(tokens)
            + self.position_embeddings(positions)
            + self.token_type_embeddings(segments)
        )
        h = self.embedding_dropout(self.embedding_norm(h))
        for layer in self.layers:
            h = layer(h, mask)
        self.pooler_act(
            self.pooler(h[:, 0])
        )  # computed in every forward pass, unused by the SQuAD loss
        start, end = self.qa_outputs(h).unbind(-1)
        return torch.cat([start, end], dim=1)


def build(input_shape=(384,), outputs=768):
    (seq_len,) = input_shape
    if outputs != 2 * seq_len:
        raise ValueError(
            f"outputs must be 2 x the sequence length ({2 * seq_len}): start and end logits"
        )
    return BertForQuestionAnswering()
