"""What Engram knows about one entity, now or as it stood (profile), and what changed in a window
(changes): read from the typed relations and the slot memories, grouped and paired here."""
