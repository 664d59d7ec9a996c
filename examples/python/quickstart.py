import passcode

with passcode.Store("quickstart.db") as store:
    if not store.is_set:
        store.set_passcode("386491")
    try:
        store.verify("000000")
    except passcode.WrongPasscode as e:
        print(f"wrong passcode: {e.message} (failed attempts: {store.failed_attempts})")
    store.verify("386491")
    print(f"right passcode (failed attempts: {store.failed_attempts})")
