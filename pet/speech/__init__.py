"""The pet's voice: speech to text (faster-whisper, stt.py), text to speech
(pyttsx3 on espeak-ng, tts.py) and the voice turn that joins them to the
agent (turn.py). The speech libraries are imported here only, and only when
first used; `status.voice_status` says whether voice can be on at all.
"""
