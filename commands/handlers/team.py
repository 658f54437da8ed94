"""Team mode: claims on the shared git remote (`leafwise team …`)."""
