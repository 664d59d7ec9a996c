import passcode

with passcode.Store("quickstart.db") as store:
    if not store.is_set:
        store.set_passcode("386491")
    try:
        store.verify("000000")
    except passcode.WrongPasscode as e:
        print("wrong passcode:", e.message)
    store.verify("386491")
    print("right passcode; failures since unlock:", store.failed_attempts)
