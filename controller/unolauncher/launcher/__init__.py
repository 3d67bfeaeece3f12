"""The launcher: ejection model (pure), device backends (gpiozero, virtual, serial) behind one interface."""
