"""Models Larik runs itself: the ``local`` provider kind (``local/NAME``) and ``larik local``.

* :mod:`.catalog` — the recommended GGUFs, pinned by sha256, and which fits this machine;
* :mod:`.store` — the pulled models' index (``<state>/local/models.json``);
* :mod:`.pull` — downloads from Hugging Face (``huggingface_hub``), or a file on this machine;
* :mod:`.engine` — llama.cpp's server (the ``xllamacpp`` wheel: Larik's ``local`` extra)
  in a child process on 127.0.0.1, fitted to the model, stopped with Larik;
* :mod:`.gguf`, :mod:`.cpu` — what a model file says, and whether this CPU runs the wheel.

Nothing is imported from here at start-up: the adapter (:mod:`larik.llm.providers.local`)
imports the engine when it first streams or probes, and ``huggingface_hub`` and ``xllamacpp``
are imported only where they are used (the wheel only in the engine's own process).
"""
