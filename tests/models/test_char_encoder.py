import torch

from pearl.models import CharEncoder, encode_chars


def test_encode_chars_pads_and_truncates():
    ids = encode_chars(["ab", "", "🙂"], max_chars=3)
    assert ids.shape == (3, 3)
    assert ids[0].tolist() == [ord("a") + 2, ord("b") + 2, 0]
    assert ids[1].tolist() == [0, 0, 0]
    assert (ids[2] > 1).all()  # the emoji's 4 UTF-8 bytes, truncated to 3


def test_forward_shapes_padding_invariance_and_empty_rows():
    torch.manual_seed(0)
    enc = CharEncoder(out_dim=16, dim=32, subword_vocab=100).eval()
    ids = encode_chars(["new york", "nyc", ""])
    sub = torch.tensor([[5, 6, 0], [7, 0, 0], [0, 0, 0]])
    out = enc(ids, sub)
    assert out.shape == (3, 16) and torch.isfinite(out).all()
    alone = enc(encode_chars(["nyc"]), torch.tensor([[7]]))
    torch.testing.assert_close(out[1], alone[0], atol=1e-5, rtol=1e-5)
    n_params = sum(p.numel() for p in CharEncoder(subword_vocab=30522).parameters())
    assert 1e6 < n_params < 5e6  # "a few million parameters" with a BERT vocabulary


def test_inference_attends_through_the_fused_kernel_with_the_layer_s_outputs(monkeypatch):
    # the layer's own inference path computes a slow masked softmax; at inference the
    # encoder calls PyTorch's fused attention itself, with the same outputs
    torch.manual_seed(0)
    enc = CharEncoder(out_dim=16, dim=32, subword_vocab=100).eval()
    ids = encode_chars(["new york times", "nyt", "", "🙂 café"])
    sub = torch.tensor([[5, 6, 9], [7, 0, 0], [0, 0, 0], [8, 4, 0]])
    layer_path = enc(ids, sub).detach()  # autograd on: the layer's own forward
    calls = []
    real = enc.attention.forward
    monkeypatch.setattr(enc.attention, "forward", lambda *a, **k: calls.append(1) or real(*a, **k))
    with torch.inference_mode():
        fused = enc(ids, sub)
    assert calls == []
    torch.testing.assert_close(fused, layer_path, atol=1e-5, rtol=1e-5)  # the empty row too
    enc.train()
    with torch.no_grad():
        enc(ids, sub)  # training mode: the layer's own forward (its dropout)
    assert calls == [1]


def test_learns_to_separate_typos_from_other_words():
    torch.manual_seed(0)
    enc = CharEncoder(out_dim=16, dim=32)
    opt = torch.optim.Adam(enc.parameters(), lr=3e-3)
    words = ["london", "paris", "berlin", "madrid", "vienna", "prague", "dublin", "lisbon"]
    typos = ["londn", "pariss", "berln", "madird", "viena", "pargue", "dubln", "lisbn"]
    from pearl.losses import info_nce

    for _ in range(150):
        loss = info_nce(enc(encode_chars(words)), enc(encode_chars(typos)), temperature=0.1)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        a = torch.nn.functional.normalize(enc(encode_chars(words)), dim=-1)
        b = torch.nn.functional.normalize(enc(encode_chars(typos)), dim=-1)
    assert ((a @ b.T).argmax(1) == torch.arange(8)).float().mean() >= 0.9
