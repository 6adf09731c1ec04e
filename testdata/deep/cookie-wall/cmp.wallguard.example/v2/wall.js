// Recorded consent wall (trimmed): remembers the visitor, shows the wall.
document.cookie = 'wallguard_uid=wg.8c1f0a; path=/; max-age=31536000; SameSite=Lax';
