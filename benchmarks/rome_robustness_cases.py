# ruff: noqa: E501  (one case per line: the three sentences side by side)
"""Hand-written cases for benchmarks/rome_robustness.py, one list per family of the RoMe paper's
robustness analysis (section 4.7). Each case is (reference, better hypothesis, worse
hypothesis): a metric ranks the case right when it scores the better hypothesis higher.
Written for nlgmetrics (Apache-2.0); no sentence is taken from a dataset.
"""

# case 1: entity replacement. better: a meaning-preserving rewording; worse: the reference's
# own words with one entity replaced by another of the same kind
ENTITY_SWAP = [
    ("The population of Germany grew last year.", "Germany's population grew last year.", "The population of England grew last year."),
    ("Marie Curie won the Nobel Prize in 1903.", "In 1903 Marie Curie won the Nobel Prize.", "Albert Einstein won the Nobel Prize in 1903."),
    ("The Danube flows into the Black Sea.", "The Danube runs into the Black Sea.", "The Danube flows into the Red Sea."),
    ("Toyota is a car maker from Japan.", "Toyota is a Japanese car maker.", "Toyota is a car maker from Sweden."),
    ("The meeting will take place in Madrid.", "The meeting is going to take place in Madrid.", "The meeting will take place in Lisbon."),
    ("Leonardo da Vinci painted the Mona Lisa.", "The Mona Lisa was painted by Leonardo da Vinci.", "Vincent van Gogh painted the Mona Lisa."),
    ("The train from Vienna arrives at noon.", "The Vienna train arrives at noon.", "The train from Prague arrives at noon."),
    ("Canberra is the capital of Australia.", "The capital of Australia is Canberra.", "Sydney is the capital of Australia."),
    ("The conference was held in Tokyo in May.", "In May the conference was held in Tokyo.", "The conference was held in Seoul in May."),
    ("Barack Obama was born in Hawaii.", "Barack Obama was born in the state of Hawaii.", "Barack Obama was born in Texas."),
    ("The Eiffel Tower is in Paris.", "The Eiffel Tower stands in Paris.", "The Eiffel Tower is in Rome."),
    ("Mozart was born in Salzburg.", "Mozart's birthplace is Salzburg.", "Mozart was born in Munich."),
    ("The Amazon river runs through Brazil.", "The Amazon runs through Brazil.", "The Amazon river runs through Canada."),
    ("Google was founded by Larry Page and Sergey Brin.", "Larry Page and Sergey Brin founded Google.", "Google was founded by Bill Gates and Sergey Brin."),
    ("The Blue Lagoon restaurant serves Italian food.", "The Blue Lagoon restaurant offers Italian food.", "The Blue Lagoon restaurant serves Chinese food."),
    ("Hotel Miramar is located near the airport.", "Hotel Miramar is close to the airport.", "Hotel Miramar is located near the cathedral."),
    ("Jupiter is the largest planet in the solar system.", "The largest planet in the solar system is Jupiter.", "Saturn is the largest planet in the solar system."),
    ("The match between Spain and Italy ended in a draw.", "Spain and Italy drew their match.", "The match between Spain and Brazil ended in a draw."),
    ("Oxygen has the chemical symbol O.", "The chemical symbol of oxygen is O.", "Nitrogen has the chemical symbol O."),
    ("The festival takes place every July in Edinburgh.", "Every July the festival takes place in Edinburgh.", "The festival takes place every July in Glasgow."),
    ("Charles Dickens wrote Oliver Twist.", "Oliver Twist was written by Charles Dickens.", "Mark Twain wrote Oliver Twist."),
    ("The flight to Boston leaves from gate twelve.", "The Boston flight leaves from gate twelve.", "The flight to Chicago leaves from gate twelve."),
]

# case 2: adjective replacement: the same sentence with a synonym (better) or an antonym (worse)
ADJECTIVE = [
    ("The hotel has a large garden.", "The hotel has a big garden.", "The hotel has a small garden."),
    ("It is a cheap restaurant near the station.", "It is an inexpensive restaurant near the station.", "It is an expensive restaurant near the station."),
    ("The old bridge crosses the river.", "The ancient bridge crosses the river.", "The new bridge crosses the river."),
    ("The room was quiet at night.", "The room was silent at night.", "The room was noisy at night."),
    ("She gave a correct answer.", "She gave a right answer.", "She gave a wrong answer."),
    ("The soup was hot.", "The soup was warm.", "The soup was cold."),
    ("He lives in a rich neighbourhood.", "He lives in a wealthy neighbourhood.", "He lives in a poor neighbourhood."),
    ("The test was easy for the students.", "The test was simple for the students.", "The test was difficult for the students."),
    ("The road to the village is narrow.", "The road to the village is tight.", "The road to the village is wide."),
    ("The museum is open on Sundays.", "The museum is accessible on Sundays.", "The museum is closed on Sundays."),
    ("The staff were friendly.", "The staff were kind.", "The staff were unfriendly."),
    ("The city centre is busy in the morning.", "The city centre is crowded in the morning.", "The city centre is empty in the morning."),
    ("The two houses look similar.", "The two houses look alike.", "The two houses look different."),
    ("The weather was pleasant all week.", "The weather was nice all week.", "The weather was unpleasant all week."),
    ("The company reported strong sales.", "The company reported robust sales.", "The company reported weak sales."),
    ("The beach is clean.", "The beach is spotless.", "The beach is dirty."),
    ("It was a happy ending.", "It was a joyful ending.", "It was a sad ending."),
    ("The bag is heavy.", "The bag is weighty.", "The bag is light."),
    ("The path through the forest is safe.", "The path through the forest is secure.", "The path through the forest is dangerous."),
    ("The restaurant serves fresh fish.", "The restaurant serves freshly caught fish.", "The restaurant serves stale fish."),
    ("The hotel offers a modern gym.", "The hotel offers a contemporary gym.", "The hotel offers an outdated gym."),
    ("The river is deep here.", "The river is very deep here.", "The river is shallow here."),
]

# case 3: random word replacement with TextAttack's placeholder AAA. better: one word replaced by
# a synonym; worse: one or two content words replaced by AAA
RANDOM_WORD = [
    ("The Golden Dragon is a cheap restaurant near the river.", "The Golden Dragon is an inexpensive restaurant near the river.", "The Golden Dragon is a cheap restaurant AAA AAA."),
    ("The Mill is a family friendly pub in the city centre.", "The Mill is a family friendly pub in the town centre.", "The Mill is a AAA friendly pub in the city AAA."),
    ("Hotel Sunset has free wifi and a pool.", "Hotel Sunset offers free wifi and a pool.", "Hotel Sunset has AAA wifi and a AAA."),
    ("The museum opens at nine in the morning.", "The museum opens at nine in the forenoon.", "The AAA opens at nine in the morning."),
    ("Alimentum serves French food at a high price.", "Alimentum serves French food at a steep price.", "Alimentum serves AAA food at a high AAA."),
    ("The train to Berlin was delayed by an hour.", "The train to Berlin was late by an hour.", "The train to AAA was delayed by an hour."),
    ("Our hotel is close to the beach.", "Our hotel is near the beach.", "Our hotel is close to the AAA."),
    ("The Punter is a coffee shop with low ratings.", "The Punter is a cafe with low ratings.", "The Punter is a coffee shop with AAA AAA."),
    ("Children love the playground in the park.", "Kids love the playground in the park.", "Children love the AAA in the park."),
    ("The Eagle serves Japanese food near Burger King.", "The Eagle offers Japanese food near Burger King.", "The Eagle serves AAA food near Burger King."),
    ("The library lends books to students.", "The library loans books to students.", "The library lends AAA to students."),
    ("Fitzbillies is an expensive Indian restaurant.", "Fitzbillies is a pricey Indian restaurant.", "Fitzbillies is an AAA Indian restaurant."),
    ("The bus stops in front of the hospital.", "The bus halts in front of the hospital.", "The bus stops in front of the AAA."),
    ("Green Man is a pub by the riverside.", "Green Man is a bar by the riverside.", "Green Man is a AAA by the riverside."),
    ("The hotel accepts dogs and cats.", "The hotel allows dogs and cats.", "The hotel accepts AAA and cats."),
    ("The concert starts at eight tonight.", "The concert begins at eight tonight.", "The concert starts at AAA tonight."),
    ("Zizzi has a customer rating of five out of five.", "Zizzi has a customer score of five out of five.", "Zizzi has a customer rating of AAA out of five."),
    ("The shop sells fresh bread every day.", "The shop sells fresh bread daily.", "The shop sells fresh AAA every day."),
    ("Cotto is a moderately priced Italian place.", "Cotto is a reasonably priced Italian place.", "Cotto is a moderately priced AAA place."),
    ("The castle overlooks the old harbour.", "The castle looks over the old harbour.", "The castle overlooks the old AAA."),
    ("Browns Cambridge serves English food in the city centre.", "Browns Cambridge offers English food in the city centre.", "Browns Cambridge serves AAA AAA in the city centre."),
    ("The pharmacy is open until midnight.", "The pharmacy stays open until midnight.", "The pharmacy is open until AAA."),
]

# case 4: TextFooler-style transformation: two words replaced by near-synonyms (better) or by
# words of the same class that change the meaning (worse)
TEXTFOOLER = [
    ("The company announced a new product on Monday.", "The firm unveiled a new product on Monday.", "The company cancelled a new product on Friday."),
    ("The doctor advised him to rest for a week.", "The physician told him to rest for a week.", "The doctor forbade him to rest for a year."),
    ("The city built a new bridge over the river.", "The town constructed a new bridge over the river.", "The city destroyed a new bridge under the river."),
    ("The students finished their project early.", "The pupils completed their project early.", "The students abandoned their project late."),
    ("The police arrested two suspects last night.", "The police detained two suspects last night.", "The police released two suspects last week."),
    ("Prices rose sharply in the spring.", "Prices increased steeply in the spring.", "Prices fell sharply in the autumn."),
    ("The team won the final match.", "The squad won the last match.", "The team lost the first match."),
    ("She bought a small house near the lake.", "She purchased a little house near the lake.", "She sold a small house far from the lake."),
    ("The government approved the new law.", "The government passed the new law.", "The government rejected the old law."),
    ("The children enjoyed the trip to the zoo.", "The kids liked the trip to the zoo.", "The children hated the trip to the school."),
    ("The manager praised the staff for their work.", "The boss commended the staff for their work.", "The manager blamed the staff for their absence."),
    ("The restaurant offers a quiet terrace.", "The eatery provides a quiet terrace.", "The restaurant lacks a noisy terrace."),
    ("He quickly repaired the broken window.", "He swiftly fixed the broken window.", "He slowly broke the repaired window."),
    ("The museum received a large donation.", "The museum got a big donation.", "The museum refused a small donation."),
    ("Scientists discovered a new species of frog.", "Researchers found a new species of frog.", "Scientists lost an old species of frog."),
    ("The hotel provides free parking for guests.", "The hotel offers free parking for visitors.", "The hotel charges for parking for staff."),
    ("The storm damaged many houses in the town.", "The storm harmed many homes in the town.", "The storm spared many houses in the desert."),
    ("The shop closes at six in the evening.", "The store shuts at six in the evening.", "The shop opens at six in the morning."),
    ("The audience applauded the young singer.", "The crowd cheered the young singer.", "The audience booed the old singer."),
    ("The farmer sold his fresh vegetables at the market.", "The farmer sold his fresh produce at the bazaar.", "The farmer bought his rotten vegetables at the market."),
    ("The pilot landed the plane safely.", "The pilot landed the aircraft safely.", "The pilot crashed the plane deliberately."),
    ("The council plans to expand the library.", "The council intends to enlarge the library.", "The council plans to close the library."),
]

# case 5: passive forms. better: the passive of the reference (same meaning); worse: the active
# form with subject and object exchanged (the same words, the meaning reversed)
PASSIVE = [
    ("Shakespeare has written Macbeth.", "Macbeth has been written by Shakespeare.", "Macbeth has written Shakespeare."),
    ("The critics praised the novel.", "The novel was praised by the critics.", "The novel praised the critics."),
    ("The cat chased the mouse.", "The mouse was chased by the cat.", "The mouse chased the cat."),
    ("The committee approved the budget.", "The budget was approved by the committee.", "The budget approved the committee."),
    ("The police arrested the thief.", "The thief was arrested by the police.", "The thief arrested the police."),
    ("The teacher helped the student.", "The student was helped by the teacher.", "The student helped the teacher."),
    ("Germany defeated Brazil.", "Brazil was defeated by Germany.", "Brazil defeated Germany."),
    ("The dog bit the postman.", "The postman was bitten by the dog.", "The postman bit the dog."),
    ("Aida Cruises operates the AIDAluna.", "The AIDAluna is operated by Aida Cruises.", "The AIDAluna operates Aida Cruises."),
    ("Picasso painted Guernica.", "Guernica was painted by Picasso.", "Guernica painted Picasso."),
    ("The company hired the engineer.", "The engineer was hired by the company.", "The engineer hired the company."),
    ("The storm destroyed the old bridge.", "The old bridge was destroyed by the storm.", "The old bridge destroyed the storm."),
    ("The hawk caught the rabbit.", "The rabbit was caught by the hawk.", "The rabbit caught the hawk."),
    ("Microsoft acquired LinkedIn.", "LinkedIn was acquired by Microsoft.", "LinkedIn acquired Microsoft."),
    ("The nurse called the doctor.", "The doctor was called by the nurse.", "The doctor called the nurse."),
    ("The chef cooked the fish.", "The fish was cooked by the chef.", "The fish cooked the chef."),
    ("The manager interviewed the applicant.", "The applicant was interviewed by the manager.", "The applicant interviewed the manager."),
    ("The boy kicked the ball.", "The ball was kicked by the boy.", "The ball kicked the boy."),
    ("The senator criticised the president.", "The president was criticised by the senator.", "The president criticised the senator."),
    ("Edison invented the phonograph.", "The phonograph was invented by Edison.", "The phonograph invented Edison."),
    ("The lion attacked the zebra.", "The zebra was attacked by the lion.", "The zebra attacked the lion."),
    ("The mother comforted the child.", "The child was comforted by the mother.", "The child comforted the mother."),
]

FAMILIES = {
    "entity swap": ENTITY_SWAP,
    "adjective synonym vs antonym": ADJECTIVE,
    "random word (AAA)": RANDOM_WORD,
    "TextFooler-style swaps": TEXTFOOLER,
    "passive vs role reversal": PASSIVE,
}
