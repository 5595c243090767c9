"""The pet's voice: speech to text (faster-whisper, stt.py), text to speech
(pyttsx3 on espeak-ng, tts.py), the voice turn that joins them to the
agent (turn.py), and reminders said aloud on the host (announce.py). The speech libraries are imported here only, and only when
first used; `status.voice_status` says whether voice can be on at all.
"""
