

def test_mask_in_info_wrapper():
    env = MaskInInfo(gymnasium.make("SixtySix-v0"))
    assert env.observation_space.shape == (OBS_SIZE,)
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(4)
    steps = 0
    while True:
        assert obs in env.observation_space
        assert set(INFO_KEYS) <= set(info)
        np.testing.assert_array_equal(info["action_mask"], env.unwrapped.action_masks())
        obs, _r, term, _trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        steps += 1
        if term:
            break
    assert not info["action_mask"].any() and steps >= 5
