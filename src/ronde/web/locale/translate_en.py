"""Fills ``en/LC_MESSAGES/django.po`` from the table below (run after makemessages).

cd src/ronde/web && python -m ronde.web makemessages -l en --no-location --no-obsolete
python locale/translate_en.py && python -m ronde.web compilemessages -l en
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

EN: dict[str, str | tuple[str, str]] = {
    "Vous n'êtes pas MJ de cette partie.": "You are not a game master of this game.",
    "Vous ne jouez pas dans cette partie.": "You do not play in this game.",
    "en attente": "pending",
    "acceptée": "accepted",
    "refusée": "refused",
    "retirée": "withdrawn",
    "Second accusé (Décorateurs)": "Second accused (Decorators)",
    "(second accusé)": "(second accused)",
    "Aucune différence.": "No difference.",
    "Actions qui seraient désormais refusées": "Actions that would now be refused",
    "Actions qui redeviennent valides": "Actions that become valid again",
    "Événements qui disparaissent": "Events that disappear",
    "Événements qui apparaissent": "Events that appear",
    "Joueur qui agit": "Acting player",
    "Heure et note": "Time and note",
    "Heure (vide : maintenant ; « J3 10:00 » ou AAAA-MM-JJTHH:MM)": (
        "Time (empty: now; “J3 10:00” or YYYY-MM-DDTHH:MM)"
    ),
    "Note des MJ (jamais montrée aux joueurs)": "Game masters' note (never shown to players)",
    "Enregistrer": "Save",
    "Tableau de bord": "Dashboard",
    "Actions": "Actions",
    "Journal": "Timeline",
    "Points": "Points",
    "Joueurs": "Players",
    "Tableau public": "Public board",
    "Envoyer la demande aux MJ": "Send the request to the game masters",
    "Reçue": "Received",
    "Action": "Action",
    "Détails": "Details",
    "État": "Status",
    "Retirer": "Withdraw",
    "Aucune demande.": "No request.",
    "Procès n°%(n)s": "Trial #%(n)s",
    "Accusé": "Accused",
    "comme": "as",
    "Ouvert par": "Opened by",
    "anonyme": "anonymous",
    "le": "on",
    "échéance": "deadline",
    "anonyme, visible de vous seul": "anonymous, visible to you only",
    "Aucune plainte publique.": "No public complaint.",
    "%(n)s plainte anonyme.": ("%(n)s anonymous complaint.", "%(n)s anonymous complaints."),
    "Plaintes nulles": "Null complaints",
    "La Ronde des Pantins": "The Puppets' Round",
    "Navigation": "Navigation",
    "Déconnexion": "Log out",
    "Connexion": "Log in",
    "Langue": "Language",
    "Heures de Paris.": "Paris time.",
    "Chœur des Démasqués": "Chorus of the Unmasked",
    "Mon personnage": "My character",
    "Membres": "Members",
    "Secrétaire": "Secretary",
    "personne": "nobody",
    "(départage les égalités)": "(breaks ties)",
    "Actions possibles": "Available actions",
    "Aucune.": "None.",
    "Votes du jour": "Today's votes",
    "Membre": "Member",
    "Aucun vote.": "No vote.",
    "Enquêtes": "Investigations",
    "Mes votes envoyés": "My votes sent",
    "Refusé": "Refused",
    "Enregistrer une action": "Record an action",
    "Enregistrée au nom de %(name)s. Jour J%(d)s.": "Recorded in the name of %(name)s. Day J%(d)s.",
    "Confirmer": "Confirm",
    "Cette action change ce qui est déjà enregistré. Voici la différence ; rien n'est "
    "enregistré avant votre confirmation.": (
        "This action changes what is already recorded. Here is the difference; nothing is "
        "recorded before you confirm."
    ),
    "Annuler": "Cancel",
    "tableau de bord": "dashboard",
    "Jour J%(d)s (dernier événement : %(t)s).": "Day J%(d)s (last event: %(t)s).",
    "Maintenant": "Now",
    "Prochaine échéance du moteur": "Engine's next deadline",
    "MJ": "GM",
    "Procès ouverts ou à annoncer": "Trials open or to announce",
    "Comme": "As",
    "Valides": "Valid",
    "Nulles": "Null",
    "Anonymes": "Anonymous",
    "Échéance": "Deadline",
    "Plainte": "Complaint",
    "Annoncer": "Announce",
    "Aucun.": "None.",
    "Demandes des joueurs": "Players' requests",
    "Accepter": "Accept",
    "raison": "reason",
    "raison du refus": "reason for refusal",
    "Refuser": "Refuse",
    "Aucune demande en attente.": "No pending request.",
    "À décider ou envoyer": "To rule on or send",
    "formulaire": "form",
    "Rien.": "Nothing.",
    "Contraintes du jour": "Today's constraints",
    "Joueur": "Player",
    "Personnage": "Character",
    "Actions aujourd'hui": "Actions today",
    "Jokers": "Jokers",
    "Tous les joueurs": "All players",
    "Masqué": "Masked",
    "Cibles": "Targets",
    "Ronde": "Round",
    "Mes parties (MJ)": "My games (GM)",
    "en préparation": "being set up",
    "Nouvelle partie": "New game",
    "Créer": "Create",
    "Jour": "Day",
    "tous": "all",
    "Heure": "Time",
    "Événement": "Event",
    "Enregistré par": "Recorded by",
    "demande du joueur": "player's request",
    "Rayer": "Strike out",
    "Actions devenues impossibles après une correction": (
        "Actions made impossible by a correction"
    ),
    "Actions rayées": "Struck-out actions",
    "rayée par %(who)s le %(when)s : %(reason)s": "struck out by %(who)s on %(when)s: %(reason)s",
    "Joueurs et invitations": "Players and invitations",
    "Envoyez à chacun son lien en MP ; il y choisit son mot de passe. Pour remplacer un "
    "joueur, utilisez l'action « Remplacer un joueur » : le remplaçant garde le personnage, "
    "les points et l'historique ; l'ancien compte perd l'accès.": (
        "Send each player his link in a private message; he chooses his password there. To "
        "replace a player, use the “Replace a player” action: the newcomer keeps the "
        "character, the points and the history; the old account loses access."
    ),
    "Pseudo": "Pseudo",
    "Compte": "Account",
    "Invitation": "Invitation",
    "Accès": "Access",
    "lien d’invitation": "invitation link",
    "utilisée": "used",
    "retiré": "revoked",
    "actif": "active",
    "Nouveau lien": "New link",
    "Retirer l'accès": "Revoke access",
    "Classement en direct": "Live scoreboard",
    "Rang": "Rank",
    "Détail": "Detail",
    "%(n)s ligne": ("%(n)s line", "%(n)s lines"),
    "Préparation": "Setup",
    "1. La partie": "1. The game",
    "Nom": "Name",
    "Date du J1": "Date of J1",
    "Règles maison": "House rules",
    "défaut": "default",
    "2. Les MJ": "2. The game masters",
    "Ajouter un MJ (pseudo)": "Add a game master (pseudo)",
    "Ajouter": "Add",
    "La liste des MJ est fixée au lancement de la partie.": (
        "The list of game masters is fixed when the game starts."
    ),
    "3. Les joueurs": "3. The players",
    "Un pseudo par ligne, ou collez le message du forum": (
        "One pseudo a line, or paste the forum post"
    ),
    "Importer": "Import",
    "%(n)s joueur.": ("%(n)s player.", "%(n)s players."),
    "4. Personnages et Ronde": "4. Characters and Round",
    "Tirer au sort": "Draw at random",
    "…ou les saisir": "…or enter them",
    "« pseudo: personnage », un par ligne": "“pseudo: character”, one a line",
    "La Ronde, dans l'ordre, un personnage par ligne": "The Round, in order, one character a line",
    "Enregistrer la distribution": "Save the cast",
    "Personnages": "Characters",
    "5. Lancer": "5. Start",
    "Lancer la partie et créer les invitations": "Start the game and create the invitations",
    "Rayer une action": "Strike out an action",
    "La partie sera reconstruite sans cette action. Rien n'est effacé : l'action reste au "
    "journal, rayée, avec la raison.": (
        "The game will be rebuilt without this action. Nothing is deleted: the action stays "
        "in the timeline, struck out, with the reason."
    ),
    "Raison": "Reason",
    "Rayer et reconstruire": "Strike out and rebuild",
    "Mes parties": "My games",
    "Parties que je mène (MJ)": "Games I run (GM)",
    "Créer ou mener une partie": "Create or run a game",
    "Tableaux publics": "Public boards",
    "Aucune partie en cours.": "No game in progress.",
    "Invitation à la partie « %(game)s »": "Invitation to the game “%(game)s”",
    "Votre identifiant : <strong>%(name)s</strong>. Choisissez votre mot de passe.": (
        "Your username: <strong>%(name)s</strong>. Choose your password."
    ),
    "Valider": "Confirm",
    "Invitation déjà utilisée": "Invitation already used",
    "Ce lien a déjà servi. Connectez-vous avec votre mot de passe, ou demandez un nouveau "
    "lien aux MJ.": (
        "This link has already been used. Log in with your password, or ask the game masters "
        "for a new link."
    ),
    "Se connecter": "Log in",
    "Jour J%(d)s": "Day J%(d)s",
    "Vous êtes démasqué.": "You are unmasked.",
    "Vous êtes démasqué officieusement (procès en cours).": (
        "You are unofficially unmasked (trial in progress)."
    ),
    "Vous dormez aujourd'hui.": "You are asleep today.",
    "Votre citoyen est mort.": "Your citizen is dead.",
    "nouveau Figurant": "new Extra",
    "Contrainte": "Constraint",
    "Pouvoir": "Power",
    "Jokers utilisés": "Jokers used",
    "Les rôles sont révélés à la fin du J1.": "Roles are revealed at the end of J1.",
    "Ce que sait votre personnage": "What your character knows",
    "Personnages que vous pouvez accuser": "Characters you may accuse",
    "Aucun pour l'instant.": "None yet.",
    "Quota du jour": "Today's quota",
    "Actions de procès aujourd'hui : %(n)s.": "Trial actions today: %(n)s.",
    "Vous pouvez encore agir.": "You may still act.",
    "Vous ne pouvez plus agir aujourd'hui.": "You may not act any more today.",
    "Identités connues": "Known identities",
    "Ce qu'on vous a dit": "What you have been told",
    "public": "public",
    "Rien pour l'instant.": "Nothing yet.",
    "Mes actions et pouvoirs": "My actions and powers",
    "Chaque formulaire envoie une demande aux MJ ; une demande anonyme compte à l'heure où "
    "ils la reçoivent.": (
        "Each form sends a request to the game masters; an anonymous request counts at the "
        "time they receive it."
    ),
    "Mes demandes": "My requests",
    "Mes points": "My points",
    "Procès": "Trials",
    "Aucun procès.": "No trial.",
    "tableau public": "public board",
    "Partie terminée.": "Game over.",
    "Démasqués": "Unmasked",
    "Démasqués et identités publiques": "Unmasked and public identities",
    "Personne.": "Nobody.",
    "Annonces": "Announcements",
    "Aucune annonce.": "No announcement.",
    "Classement": "Ranking",
    "ouvert": "open",
    "juste": "just",
    "injuste": "unjust",
    "caduc": "lapsed",
    "annulé": "cancelled",
    "sans objet": "void",
    "Respectée": "Met",
    "Non respectée": "Not met",
    "Action antérieure au dernier événement": "Action earlier than the last event",
    "%(n)d événement(s) enregistré(s) entre-temps (un autre MJ, une échéance) : votre action "
    "a été appliquée sur l'état à jour.": (
        "%(n)d event(s) recorded meanwhile (another game master, a deadline): your action was "
        "applied to the updated state."
    ),
    "Enregistré : %(action)s (%(n)d événement(s)).": "Recorded: %(action)s (%(n)d event(s)).",
    "Annonce : %(text)s": "Announcement: %(text)s",
    "horloge": "clock",
    "création": "creation",
    "Cette action est déjà rayée.": "This action is already struck out.",
    "Action rayée ; la partie a été reconstruite sans elle.": (
        "Action struck out; the game was rebuilt without it."
    ),
    "Nouveau lien d'invitation pour %(p)s.": "New invitation link for %(p)s.",
    "retiré par les MJ": "revoked by the game masters",
    "Accès retiré à %(p)s.": "Access revoked for %(p)s.",
    "Cette demande a déjà été traitée.": "This request has already been handled.",
    "Refusée par les MJ.": "Refused by the game masters.",
    "Demande refusée.": "Request refused.",
    "Accepter une demande reçue avant le dernier événement": (
        "Accept a request received before the last event"
    ),
    "Refusée par les règles : %(m)s": "Refused by the rules: %(m)s",
    "Ce compte ne joue plus dans cette partie.": "This account no longer plays in this game.",
    "Seuls les Démasqués vivants forment le chœur.": ("Only the living Unmasked form the chorus."),
    "Cette action n'est pas à votre portée.": "This action is not yours to take.",
    "Demande envoyée aux MJ.": "Request sent to the game masters.",
    "Demande retirée.": "Request withdrawn.",
    "Cette partie n'a pas commencé.": "This game has not started.",
    "Mot de passe": "Password",
    "Le même, encore une fois": "The same, once more",
    "Les deux mots de passe diffèrent.": "The two passwords differ.",
    "Nom de la partie": "Name of the game",
    "Votre nom de MJ dans la partie": "Your game master name in the game",
    "Nom et date du J1 sont requis.": "Name and date of J1 are required.",
    "Partie mise à jour.": "Game updated.",
    "%(n)d joueurs.": "%(n)d players.",
    "Personnages et Ronde tirés au sort.": "Characters and Round drawn at random.",
    "Une ligne par joueur : « pseudo: personnage ».": "One line a player: “pseudo: character”.",
    "Distribution enregistrée.": "Cast saved.",
    "Nom du MJ manquant.": "Game master's name missing.",
    "Ce MJ est déjà dans la partie.": "This game master is already in the game.",
    "MJ ajouté : %(n)s.": "Game master added: %(n)s.",
    "Tirez ou saisissez d'abord la distribution.": "Draw or enter the cast first.",
    "La partie commence. Envoyez à chaque joueur son lien d'invitation.": (
        "The game starts. Send each player his invitation link."
    ),
    "Anonyme (par MP aux MJ)": "Anonymous (by private message to the GMs)",
    "Enquêter": "Investigate",
    "Endormir": "Put to sleep",
    "Répandre un secret": "Spread a secret",
    "Souffler (bougie)": "Blow (candle)",
    "Couper un fil": "Cut a thread",
    "porter plainte": "complain",
    "aller à une case": "go to a cell",
    "prendre un objet": "take an item",
    "Ouvrir un Procès": "Open a trial",
    "Accusé (deux pour les Décorateurs)": "Accused (two for the Decorators)",
    "Personnage supposé": "Supposed character",
    "Arguments": "Arguments",
    "Porter plainte": "Complain",
    "Message dans un Procès": "Post in a trial",
    "Défend (Avocat du Diable)": "Defends (Devil's Advocate)",
    "Message aux Répétitions": "Post in the Rehearsals",
    "Annuler un Procès (vice de procédure)": "Cancel a trial (procedural defect)",
    "Écourter un Procès": "Shorten a trial",
    "Poser une question (Woody)": "Ask a question (Woody)",
    "Est-il …": "Is he …",
    "Révéler un secret": "Reveal a secret",
    "Offrir l'anonymat": "Grant anonymity",
    "Donner un ordre (Petite Sirène)": "Give an order (Little Mermaid)",
    "Ordre": "Order",
    "Procès (plainte)": "Trial (complaint)",
    "Case x,y (déplacement)": "Cell x,y (move)",
    "Objet (prise)": "Item (take)",
    "Choisir sa phrase (Souffleur)": "Choose the phrase (Prompter)",
    "Phrase d'au moins 8 mots": "Phrase of at least 8 words",
    "Souffler à un joueur": "Prompt a player",
    "Thème trouvé (décision des MJ)": "Theme found (game masters' ruling)",
    "Désigner son monstre": "Designate the monster",
    "Accuser le monstre": "Accuse the monster",
    "Déclarer « je ne suis pas … »": "Declare “I am not …”",
    "Déclarer sa destinée": "Declare the destiny",
    "Personnages du J2 au J13, dans l'ordre": "Characters from J2 to J13, in order",
    "Désigner un personnage (Diva)": "Designate a character (Diva)",
    "Dernier souffle (Diva)": "Last breath (Diva)",
    "Deviner la Ronde": "Guess the Round",
    "Les personnages de la Ronde, dans l'ordre": "The characters of the Round, in order",
    "Une seule tentative par partie.": "One attempt per game.",
    "Envoyer des objets à un MJ": "Send items to a game master",
    "Objets (identifiants)": "Items (ids)",
    "Utiliser un Joker": "Use a Joker",
    "Objets envoyés pour le Joker": "Items sent for the Joker",
    "Voter (chœur des Démasqués)": "Vote (chorus of the Unmasked)",
    "Action du chœur": "Chorus action",
    "Personnage (enquête)": "Character (investigation)",
    "Thème trouvé": "Theme found",
    "Annoncer un verdict": "Announce a verdict",
    "Juger une contrainte": "Rule on a constraint",
    "Thème du jour (Figurants)": "Theme of the day (Extras)",
    "Thème": "Theme",
    "Exempter (vie réelle)": "Exempt (real life)",
    "Jours (ex. 4, 5)": "Days (e.g. 4, 5)",
    "Rattrapage avant": "Make up before",
    "Transfigurer en Figurant": "Transfigure into an Extra",
    "Modèle du Mime": "The Mime's model",
    "Rôle du Revenant": "The Revenant's role",
    "Nommer le Secrétaire": "Appoint the Secretary",
    "Points (décision des MJ)": "Points (game masters' ruling)",
    "Remplacer un joueur": "Replace a player",
    "Pseudo du remplaçant": "Pseudo of the newcomer",
    "Mort du citoyen": "Death of the citizen",
    "Clore la partie": "Close the game",
    "Joueur (pour une enquête, un sommeil…)": "Player (investigation, sleep…)",
    "Respectée ?": "Met?",
    "Jour (numéro)": "Day (number)",
    "Nouveau Personnage à démasquer": "New character to unmask",
}


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _unquote(block: str) -> str:
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"', block)
    return "".join(parts).replace('\\"', '"').replace("\\\\", "\\")


def fill(po: Path) -> list[str]:
    """Write the English of every known msgid; return the msgids left untranslated."""
    text = po.read_text(encoding="utf-8")
    entries = text.split("\n\n")
    missing = []
    out = []
    for entry in entries:
        m = re.search(r'^msgid ((?:".*"\n?)+)', entry, re.M)
        if not m or entry.lstrip().startswith('msgid ""\nmsgstr ""\n"Project'):
            out.append(entry)
            continue
        msgid = _unquote(m.group(1))
        if not msgid:
            header = "\n".join(ln for ln in entry.splitlines() if ln != "#, fuzzy")
            out.append(header.replace('"Language: \\n"', '"Language: en\\n"'))
            continue
        lines = [ln for ln in entry.splitlines() if not ln.startswith(("#, fuzzy",))]
        entry = "\n".join(lines)
        en = EN.get(msgid)
        if en is None:
            missing.append(msgid)
            out.append(entry)
            continue
        head = entry[: entry.index("msgstr")] if "msgstr" in entry else entry + "\n"
        if isinstance(en, tuple):
            out.append(f"{head}msgstr[0] {_quote(en[0])}\nmsgstr[1] {_quote(en[1])}")
        else:
            out.append(f"{head}msgstr {_quote(en)}")
    po.write_text("\n\n".join(out), encoding="utf-8")
    return missing


if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    left = fill(here / "en" / "LC_MESSAGES" / "django.po")
    for msgid in left:
        print(f"untranslated: {msgid!r}")
    sys.exit(1 if left else 0)
