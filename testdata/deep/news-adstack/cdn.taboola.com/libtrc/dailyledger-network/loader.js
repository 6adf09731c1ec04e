// Recorded recommendation widget loader (trimmed).
new Image().src = 'https://trc.taboola.com/dailyledger-network/log/3/available?id=1';
