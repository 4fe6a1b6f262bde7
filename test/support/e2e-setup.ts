// End-to-end tests start real processes; give them room (the processes themselves answer in milliseconds).
jest.setTimeout(60_000);
