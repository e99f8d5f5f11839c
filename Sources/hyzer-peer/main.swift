print("hyzer-peer")
