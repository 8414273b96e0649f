"""WeightedRandomSampler and random_split, compared with torch.utils.data."""
import collections

import pytest
import torch
import torch.utils.data as tud

import adept
import adept.data as aud


def test_weighted_with_replacement_follows_the_weights():
    weights = [0.0, 1.0, 3.0, 6.0]
    s = aud.WeightedRandomSampler(weights, 20000, seed=3)
    counts = collections.Counter(iter(s))
    assert len(s) == 20000 and 0 not in counts
    for i in (1, 2, 3):
        assert abs(counts[i] / 20000 - weights[i] / 10) < 0.02
    assert list(aud.WeightedRandomSampler(weights, 50, seed=3)) == list(aud.WeightedRandomSampler(weights, 50, seed=3))


def test_weighted_without_replacement_draws_distinct_positive_indices():
    weights = [1, 0, 5, 2, 2, 0, 9]
    for seed in range(20):
        got = list(aud.WeightedRandomSampler(weights, 5, replacement=False, seed=seed))
        assert len(set(got)) == 5 and not {1, 5} & set(got)
    # the heaviest item comes first most often, as with torch.multinomial
    firsts = collections.Counter(next(iter(aud.WeightedRandomSampler(weights, 1, replacement=False, seed=s)))
                                 for s in range(3000))
    assert abs(firsts[6] / 3000 - 9 / 19) < 0.04


@pytest.mark.parametrize("args", [dict(weights=[1, 2], num_samples=0), dict(weights=[1, 2], num_samples=-1),
                                  dict(weights=[1, 2], num_samples=2, replacement=1),
                                  dict(weights=[[1, 2]], num_samples=2)])
def test_weighted_argument_errors_match_torch(args):
    with pytest.raises(ValueError) as theirs:
        tud.WeightedRandomSampler(**args)
    with pytest.raises(ValueError) as ours:
        aud.WeightedRandomSampler(**args)
    assert str(ours.value) == str(theirs.value).replace("torch.Size([1, 2])", "(1, 2)")


def test_weighted_without_replacement_needs_enough_positive_weights():
    with pytest.raises(ValueError):
        aud.WeightedRandomSampler([1, 0, 1], 3, replacement=False)


@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.7], [0.5, 0.25, 0.25], [1, 1, 8], [0.33, 0.33, 0.34]])
def test_random_split_sizes_match_torch_and_partition(lengths):
    data = list(range(10))
    ours = aud.random_split(data, lengths, generator=adept.Generator().manual_seed(1))
    theirs = tud.random_split(data, lengths, generator=torch.Generator().manual_seed(1))
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    assert sorted(x for s in ours for x in s) == data


def test_random_split_errors_like_torch():
    for lengths in ([3, 3], [0.5, 0.6]):
        with pytest.raises(ValueError) as theirs:
            tud.random_split(list(range(10)), lengths)
        with pytest.raises(ValueError) as ours:
            aud.random_split(list(range(10)), lengths)
        assert str(ours.value) == str(theirs.value)
