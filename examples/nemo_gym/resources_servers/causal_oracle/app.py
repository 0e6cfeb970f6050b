"""causal-oracle's NeMo-Gym resources server (NeMo-Gym's layout: ``app.py`` beside
``configs/causal_oracle.yaml`` and ``data/``).

NeMo-Gym's launcher runs ``python app.py`` with ``NEMO_GYM_CONFIG_DICT`` and
``NEMO_GYM_CONFIG_PATH`` set; the server then listens on the host and port of its entry
in that config.  Run alone: ``python app.py --port 8000``.  The server itself is
``causal_oracle.rewards.nemo_gym`` (Starlette on uvicorn; needs ``causal-oracle[rl]``).
"""

from causal_oracle.rewards.nemo_gym import main

if __name__ == "__main__":
    raise SystemExit(main())
